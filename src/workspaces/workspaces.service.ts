import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../common/errors/problem.exception';
import { WorkspaceRow, WorkspacesRepository } from './workspaces.repository';
import { exceedsVarchar } from '../common/database/columns';

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;

/** Workspace lifecycle. Workspaces are created by operators (admin CLI and first start). */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WorkspacesRepository,
  ) {}

  async create(slug: string, name: string, ownerId: string | null, m?: EntityManager): Promise<WorkspaceRow> {
    const s = slug.trim().toLowerCase();
    if (!SLUG_RE.test(s))
      throw ProblemException.validation('slug', 'Use 1-48 lower-case letters, digits and inner hyphens.');
    if (!name.trim() || exceedsVarchar(name))
      throw ProblemException.validation('name', 'Name is required (max 255 characters).');
    const db = m ?? this.ds;
    if (await this.repo.findBySlug(s, db)) throw ProblemException.conflict(`The workspace slug "${s}" is taken.`);
    return this.repo.insert(s, name.trim(), ownerId, db);
  }

  findBySlug(slug: string): Promise<WorkspaceRow | null> {
    return this.repo.findBySlug(slug.toLowerCase());
  }
}
