import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/common/database/data-source';
import { createTestDatabase } from '../helpers/database';

/**
 * Tenant tables created before the rule below (docs/extending.md, "The migration"): their primary key is (id) and
 * some unique indexes lack workspace_id. Frozen: a new table is never added here, it follows the rule.
 */
const BEFORE_THE_TENANT_KEY_RULE = new Set([
  'app_installations',
  'apps',
  'audit_aggregates',
  'audit_logs',
  'cycles',
  'estimate_points',
  'estimates',
  'labels',
  'module_work_items',
  'modules',
  'oauth_tokens',
  'project_features',
  'project_members',
  'project_work_item_counts',
  'project_work_item_types',
  'projects',
  'states',
  'work_item_assignee_counts',
  'work_item_assignees',
  'work_item_comments',
  'work_item_label_counts',
  'work_item_labels',
  'work_item_properties',
  'work_item_property_context_options',
  'work_item_property_context_projects',
  'work_item_property_context_types',
  'work_item_property_contexts',
  'work_item_property_options',
  'work_item_state_priority_counts',
  'work_item_type_properties',
  'work_item_types',
  'work_items',
  'workflow_state_transitions',
  'workflow_states',
  'workflows',
  'workspace_features',
  'workspace_members',
]);

/** Each tenant table (one with workspace_id): its workspace_id nullability, primary key and unique indexes without workspace_id. */
const TENANT_TABLES = `
  SELECT c.relname AS name,
         (SELECT a.attnotnull FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id') AS not_null,
         (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM pg_index i, unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
           WHERE i.indrelid = c.oid AND i.indisprimary) AS pk,
         (SELECT coalesce(array_agg(ic.relname::text ORDER BY ic.relname), '{}') FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
           WHERE i.indrelid = c.oid AND i.indisunique AND NOT i.indisprimary
             AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id'
                                AND a.attnum = ANY(i.indkey))) AS unique_without_workspace
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
     AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)`;

describe('schema drift', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase();
    ds = new DataSource(dataSourceOptions(db.url, 2));
    await ds.initialize();
  });
  afterAll(async () => {
    await ds.destroy();
    await db.drop();
  });

  /** The entities and the migrations must describe the same schema: generating a migration yields nothing. */
  it('migrations match the entities', async () => {
    const sql = await ds.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('a new tenant table has workspace_id NOT NULL, the key (workspace_id, id) and workspace_id in every unique index', async () => {
    const rows: Array<{ name: string; not_null: boolean; pk: string[]; unique_without_workspace: string[] }> =
      await ds.query(TENANT_TABLES);
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['work_item_links', 'work_items']));
    const offending = rows
      .filter((r) => !BEFORE_THE_TENANT_KEY_RULE.has(r.name))
      .filter((r) => !r.not_null || r.pk?.join(',') !== 'workspace_id,id' || r.unique_without_workspace.length)
      .map(
        (r) =>
          `${r.name}: not null ${r.not_null}, key (${r.pk?.join(', ')}), unique without workspace_id [${r.unique_without_workspace.join(', ')}]`,
      );
    expect(offending).toEqual([]);
  });
});
