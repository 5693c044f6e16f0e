import { MigrationInterface, QueryRunner } from 'typeorm';
import { addRowVersion, dropRowVersion } from './1795540000000-IdempotencyAndRowVersions';

/**
 * Issue 23: the last single-record reads without a row version get one, so every single-resource GET has a strong
 * ETag and every PATCH or DELETE of one honours If-Match: workspace and project features (one row per workspace or
 * project, addressed without an id), type-property links (addressed by the pair), work item links and relation
 * definitions (issue 18's records).
 */
const TABLES = [
  'workspace_features',
  'project_features',
  'work_item_type_properties',
  'work_item_links',
  'work_item_relation_definitions',
];

export class RemainingRowVersions1795640002000 implements MigrationInterface {
  name = 'RemainingRowVersions1795640002000';

  public async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await addRowVersion(q, t);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await dropRowVersion(q, t);
  }
}
