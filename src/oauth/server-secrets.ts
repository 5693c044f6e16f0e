import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * Random keys every instance shares (the sign-in cookies' signing key, the CSRF key), made by whichever instance
 * needs one first (the CSRF key at start, the cookie key when the authorization server first serves a request) and
 * kept in the database: nothing to configure, and a cookie signed by one instance is good on all.
 */
@Injectable()
export class ServerSecrets {
  constructor(private readonly ds: DataSource) {}

  async get(name: string): Promise<string> {
    await this.ds.query(
      `INSERT INTO oauth_server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [name, randomBytes(32).toString('base64url')],
    );
    const rows: Array<{ value: string }> = await this.ds.query(
      `SELECT value FROM oauth_server_secrets WHERE name = $1`,
      [name],
    );
    return rows[0].value;
  }
}
