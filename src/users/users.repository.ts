import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';

export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  first_name: string;
  last_name: string;
  avatar_url: string | null;
}

@Injectable()
export class UsersRepository {
  constructor(private readonly ds: DataSource) {}

  async findByEmail(email: string, db: Queryable = this.ds): Promise<UserRow | null> {
    const rows = await db.query(
      `SELECT id, email, display_name, first_name, last_name, avatar_url FROM users WHERE email = $1 AND deleted_at IS NULL`,
      [email.trim().toLowerCase()],
    );
    return rows[0] ?? null;
  }

  async findById(id: string, db: Queryable = this.ds): Promise<UserRow | null> {
    const rows = await db.query(
      `SELECT id, email, display_name, first_name, last_name, avatar_url FROM users WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    );
    return rows[0] ?? null;
  }

  async insert(email: string, displayName: string, db: Queryable = this.ds): Promise<UserRow> {
    const rows = await db.query(
      `INSERT INTO users (email, display_name) VALUES ($1, $2)
       RETURNING id, email, display_name, first_name, last_name, avatar_url`,
      [email.trim().toLowerCase(), displayName],
    );
    return rows[0];
  }

  /** An app installation's bot user: never signs in (no password), acts through client-credentials tokens. */
  async insertBot(email: string, displayName: string, db: Queryable): Promise<UserRow> {
    const rows = await db.query(
      `INSERT INTO users (email, display_name, is_bot) VALUES ($1, $2, true)
       RETURNING id, email, display_name, first_name, last_name, avatar_url`,
      [email, displayName],
    );
    return rows[0];
  }

  /** What the sign-in page checks: a live, active person (not a bot) and their password hash. */
  async signInCandidate(
    email: string,
  ): Promise<{ id: string; email: string; display_name: string; password_hash: string | null } | null> {
    const rows = await this.ds.query(
      `SELECT id, email, display_name, password_hash FROM users
        WHERE email = $1 AND deleted_at IS NULL AND is_active AND NOT is_bot`,
      [email.trim().toLowerCase()],
    );
    return rows[0] ?? null;
  }

  async setPasswordHash(id: string, hash: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE users SET password_hash = $2, password_updated_at = now(), updated_at = now() WHERE id = $1`,
      [id, hash],
    );
  }
}
