import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../database/prepared';
import { AuthCache } from './auth-cache';
import { WorkspaceIds } from './workspace-ids';

export interface ResolvedAuthRow {
  credential_id: string;
  credential_expires_at: Date | null;
  user_id: string;
  email: string;
  display_name: string;
  scopes: string[] | null;
  /** `bot` for an app installation's client-credentials token; null for API keys. */
  principal_kind: string | null;
  workspace_id: string | null;
  workspace_slug: string | null;
  workspace_name: string | null;
  workspace_role: string | null;
  project_id: string | null;
  project_identifier: string | null;
  project_name: string | null;
  project_default_assignee_id: string | null;
  project_archived: boolean | null;
  project_role: string | null;
}

/** The project a path names: by id, or (the later edition) by its identifier, upper-cased. */
export type ProjectKey = { id: string } | { identifier: string };

/**
 * One round trip resolves the credential, its user, the workspace of the path (only if the user is
 * an active member: the tenant wall) and the project of the path with the user's project role (plus, the first
 * time this process sees a workspace's slug, one indexed read of its id).
 */
@Injectable()
export class AuthRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly cache: AuthCache,
  ) {}

  /** Workspace ids by slug, for the lookup (one per process: slugs never change). */
  private readonly workspaceIds = new WorkspaceIds();

  /** Through the AuthCache: a credential resolved moments ago for the same workspace and project is not looked up again. */
  resolve(
    kind: 'api_key' | 'oauth',
    hash: string,
    slug: string | null,
    project: ProjectKey | null,
  ): Promise<ResolvedAuthRow | null> {
    const key = project ? ('id' in project ? project.id : `#${project.identifier}`) : '';
    return this.cache.resolve(`${kind}\u0000${hash}\u0000${slug ?? ''}\u0000${key}`, () =>
      this.lookup(kind, hash, slug, project),
    );
  }

  /** Moves each key's last_used_at forward to its time (never back: another instance may have stamped it later). */
  async stampKeysUsed(ids: string[], times: Date[]): Promise<void> {
    await this.ds.query(
      `UPDATE api_keys k SET last_used_at = u.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
        WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
      [ids, times],
    );
  }

  /**
   * The credential's row for the workspace of the path. The workspace's id comes from WorkspaceIds (one indexed
   * read the first time a slug is seen), so the statement pins every tenant table to it. A cached id that no
   * longer answers to its slug (the workspace was deleted and the slug taken again) is learned anew, once.
   */
  private async lookup(
    kind: 'api_key' | 'oauth',
    hash: string,
    slug: string | null,
    project: ProjectKey | null,
  ): Promise<ResolvedAuthRow | null> {
    const cached = slug === null ? undefined : this.workspaceIds.get(slug);
    const workspaceId = slug === null ? null : (cached ?? (await this.workspaceIdOf(slug)));
    const row = await this.credentialRow(kind, hash, slug, workspaceId, project);
    if (slug === null || cached === undefined || !row || row.workspace_id !== null) return row;
    this.workspaceIds.forget(slug);
    const fresh = await this.workspaceIdOf(slug);
    return fresh === cached ? row : this.credentialRow(kind, hash, slug, fresh, project);
  }

  /** The live workspace of a slug, remembered when found; null when there is none. */
  private async workspaceIdOf(slug: string): Promise<string | null> {
    const rows = await preparedQuery<{ id: string }>(
      this.ds,
      'auth_workspace_id',
      `SELECT id FROM workspaces WHERE slug = $1 AND deleted_at IS NULL`,
      [slug],
    );
    if (rows[0]) this.workspaceIds.set(slug, rows[0].id);
    return rows[0]?.id ?? null;
  }

  private async credentialRow(
    kind: 'api_key' | 'oauth',
    hash: string,
    slug: string | null,
    workspaceId: string | null,
    project: ProjectKey | null,
  ): Promise<ResolvedAuthRow | null> {
    const cred =
      kind === 'api_key'
        ? `SELECT id, user_id, NULL::text[] AS scopes, expires_at, NULL::text AS principal_kind, NULL::uuid AS only_workspace_id
             FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`
        : `SELECT id, user_id, scopes, expires_at, principal_kind, workspace_id AS only_workspace_id
             FROM oauth_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now()`;
    // Every tenant table is pinned to $2 (workspace_id = $2): one shard on a distributed PostgreSQL. users,
    // workspaces and the credential tables are reference tables (docs/scaling.md).
    const rows = await preparedQuery<ResolvedAuthRow>(
      this.ds,
      `auth_resolve_${kind}`,
      `WITH cred AS (${cred})
       SELECT cred.id AS credential_id, cred.expires_at AS credential_expires_at, u.id AS user_id, u.email, u.display_name, cred.scopes, cred.principal_kind,
              w.id AS workspace_id, w.slug AS workspace_slug, w.name AS workspace_name, wm.role AS workspace_role,
              p.id AS project_id, p.identifier AS project_identifier, p.name AS project_name,
              p.default_assignee_id AS project_default_assignee_id, p.archived_at IS NOT NULL AS project_archived,
              pm.role AS project_role
         FROM cred
         JOIN users u ON u.id = cred.user_id AND u.deleted_at IS NULL AND u.is_active
         LEFT JOIN workspaces w ON w.id = $2::uuid AND w.slug = $5::text AND w.deleted_at IS NULL
                               AND (cred.only_workspace_id IS NULL OR w.id = cred.only_workspace_id)
         LEFT JOIN workspace_members wm ON wm.workspace_id = $2::uuid AND w.id IS NOT NULL AND wm.member_id = u.id
                                       AND wm.deleted_at IS NULL AND wm.is_active
         LEFT JOIN projects p ON p.workspace_id = $2::uuid AND wm.id IS NOT NULL AND p.deleted_at IS NULL
                             AND (($3::uuid IS NOT NULL AND p.id = $3) OR ($4::text IS NOT NULL AND p.identifier = $4))
         LEFT JOIN project_members pm ON pm.workspace_id = $2::uuid AND pm.project_id = p.id AND pm.member_id = u.id
                                     AND pm.deleted_at IS NULL`,
      [
        hash,
        workspaceId,
        project && 'id' in project ? project.id : null,
        project && 'identifier' in project ? project.identifier : null,
        slug,
      ],
    );
    return rows[0] ?? null;
  }
}
