import { MigrationInterface, QueryRunner } from 'typeorm';
import { addRowVersion, dropRowVersion } from './1795540000000-IdempotencyAndRowVersions';

/**
 * Issue 23: memberships take part in ETags and If-Match like the other records (migration
 * IdempotencyAndRowVersions): a `version` column, 1 at insert, bumped by wt_bump_row_version on every UPDATE.
 */
const TABLES = ['workspace_members', 'project_members'];

export class MemberRowVersions1795640001000 implements MigrationInterface {
  name = 'MemberRowVersions1795640001000';

  public async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await addRowVersion(q, t);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await dropRowVersion(q, t);
  }
}
