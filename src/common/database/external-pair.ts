import { ProblemException } from '../errors/problem.exception';
import { Queryable } from '../pagination/sql-params';

/** Tables whose `(external_source, external_id)` pair names one live record per project (or per workspace). */
const PAIR_TABLES = { states: 'state', labels: 'label', cycles: 'cycle', modules: 'module' } as const;
export type ExternalPairTable = keyof typeof PAIR_TABLES;

interface PairWrite {
  external_id?: string | null;
  external_source?: string | null;
}

/**
 * An importer's idempotency key: a create, or an update that changes the pair, reusing the pair of a live
 * record of the same scope (a project; workspace-level labels: the workspace) is 409 `conflict` naming that
 * record, as for work items and types, so a retried import finds its record instead of making a second one.
 * A pair counts only when both parts are set. Checked under a transaction advisory lock on the pair, so two
 * racing writes of one pair cannot both pass. Runs inside the write's transaction.
 */
export async function assertExternalPairFree(
  tx: Queryable,
  table: ExternalPairTable,
  scope: { workspaceId: string; projectId: string | null },
  sent: PairWrite,
  current: { id: string; external_id: string | null; external_source: string | null } | null,
): Promise<void> {
  if (sent.external_id === undefined && sent.external_source === undefined) return;
  const externalId = sent.external_id === undefined ? (current?.external_id ?? null) : sent.external_id;
  const source = sent.external_source === undefined ? (current?.external_source ?? null) : sent.external_source;
  if (!externalId || !source) return;
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
    `external:${table}:${scope.workspaceId}:${scope.projectId ?? '-'}:${source.length}:${source}:${externalId}`,
  ]);
  const rows: Array<{ id: string }> = await tx.query(
    `SELECT id FROM ${table}
      WHERE workspace_id = $1 AND project_id IS NOT DISTINCT FROM $2::uuid AND external_source = $3 AND external_id = $4
        AND deleted_at IS NULL AND ($5::uuid IS NULL OR id <> $5::uuid)
      LIMIT 1`,
    [scope.workspaceId, scope.projectId, source, externalId, current?.id ?? null],
  );
  if (rows.length) {
    const where = scope.projectId ? 'this project' : 'this workspace';
    throw ProblemException.conflict(
      `A ${PAIR_TABLES[table]} with external_source "${source}" and external_id "${externalId}" already exists in ${where}: ${rows[0].id}.`,
    );
  }
}

/** Tables an upsert reconciles on `(external_source, external_id)`, with the column that scopes the pair. */
const UPSERT_TABLES = {
  projects: null,
  states: 'project_id',
  labels: 'project_id',
  cycles: 'project_id',
  modules: 'project_id',
  estimates: 'project_id',
  estimate_points: 'estimate_id',
  work_item_comments: 'work_item_id',
} as const;
export type UpsertTable = keyof typeof UPSERT_TABLES;

/**
 * The live record of the scope (`scopeId`: the value of the table's scope column; projects are scoped by the
 * workspace alone, scopeId null) holding the external pair, for an upsert; null when none does. Index-backed
 * (ix_*_external, migration ExternalPairIndexes).
 * The oldest wins should an older pair have been stored twice (comments are not deduplicated).
 */
export async function findExternalHolder(
  db: Queryable,
  table: UpsertTable,
  workspaceId: string,
  scopeId: string | null,
  source: string,
  externalId: string,
): Promise<string | null> {
  const col = UPSERT_TABLES[table];
  const rows: Array<{ id: string }> = await db.query(
    `SELECT id FROM ${table}
      WHERE workspace_id = $1 AND ${col ? `${col} = $2::uuid` : '$2::uuid IS NULL'}
        AND external_source = $3 AND external_id = $4 AND deleted_at IS NULL
      ORDER BY created_at, id LIMIT 1`,
    [workspaceId, scopeId, source, externalId],
  );
  return rows[0]?.id ?? null;
}
