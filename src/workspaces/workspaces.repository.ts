import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';

export interface WorkspaceRow {
  id: string;
  slug: string;
  name: string;
  owner_id: string | null;
  created_at: Date;
}

@Injectable()
export class WorkspacesRepository {
  constructor(private readonly ds: DataSource) {}

  async findBySlug(slug: string, db: Queryable = this.ds): Promise<WorkspaceRow | null> {
    const rows = await db.query(
      `SELECT id, slug, name, owner_id, created_at FROM workspaces WHERE slug = $1 AND deleted_at IS NULL`,
      [slug],
    );
    return rows[0] ?? null;
  }

  async insert(slug: string, name: string, ownerId: string | null, db: Queryable = this.ds): Promise<WorkspaceRow> {
    const rows = await db.query(
      `INSERT INTO workspaces (slug, name, owner_id) VALUES ($1, $2, $3) RETURNING id, slug, name, owner_id, created_at`,
      [slug, name, ownerId],
    );
    return rows[0];
  }

  async countAll(db: Queryable = this.ds): Promise<number> {
    const rows = await db.query(`SELECT count(*)::int AS c FROM workspaces`);
    return rows[0].c;
  }
}
