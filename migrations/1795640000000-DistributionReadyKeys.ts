import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 25, part 1: a schema a distributed PostgreSQL (Citus, distributed by workspace_id) takes as it is. Every
 * tenant table's primary key and unique index starts with workspace_id, so each is enforceable on one shard; ids
 * stay globally unique UUIDs. Lookups by a table's old key keep a plain index that serves them (`ix_<table>_by_id`,
 * `ix_<table>_by_key`). The counter triggers name their conflict targets by column list, so their functions are
 * rewritten to the new keys. Exceptions (docs/scaling.md): the credential tables (apps, app_installations,
 * oauth_tokens: looked up by client id or token hash before any workspace is known) and audit_logs (instance-wide
 * events have no workspace) keep their keys.
 */

/** Tables keyed by `id`: the key becomes (workspace_id, id). */
export const ID_KEYED_TENANT_TABLES = [
  'projects',
  'project_members',
  'project_features',
  'workspace_members',
  'workspace_features',
  'states',
  'labels',
  'estimates',
  'estimate_points',
  'cycles',
  'modules',
  'workflows',
  'workflow_states',
  'workflow_state_transitions',
  'work_item_types',
  'work_item_properties',
  'work_item_property_options',
  'work_item_property_contexts',
  'work_items',
  'work_item_comments',
];

/** Tables keyed by other columns: the key becomes (workspace_id, ...those). */
export const COMPOSITE_KEYED_TENANT_TABLES: Record<string, string[]> = {
  module_work_items: ['module_id', 'work_item_id'],
  work_item_assignees: ['work_item_id', 'assignee_id'],
  work_item_labels: ['work_item_id', 'label_id'],
  project_work_item_types: ['project_id', 'type_id'],
  work_item_type_properties: ['type_id', 'property_id'],
  work_item_property_context_options: ['context_id', 'option_id'],
  work_item_property_context_projects: ['context_id', 'project_id'],
  work_item_property_context_types: ['context_id', 'type_id'],
  project_work_item_counts: ['project_id', 'slot'],
  work_item_assignee_counts: ['assignee_id', 'project_id', 'state_group_rank', 'slot'],
  work_item_label_counts: ['label_id', 'project_id', 'state_group_rank', 'slot'],
  work_item_state_priority_counts: ['project_id', 'state_id', 'priority', 'slot'],
};

/** Unique indexes of tenant tables without workspace_id: recreated with it as their first column. */
const UNIQUE_INDEXES = [
  'uq_cycles_name',
  'uq_estimate_points_value',
  'uq_estimates_name',
  'uq_estimates_active',
  'uq_labels_project_name',
  'uq_modules_name',
  'uq_project_features_project',
  'uq_project_members_member',
  'uq_states_name',
  'uq_states_default',
  'uq_wip_project_name',
  'uq_wipc_name',
  'uq_wipc_all_projects',
  'uq_wipc_external',
  'uq_wipo_default',
  'uq_wit_project_default',
  'uq_wit_project_external',
  'uq_wit_project_name',
  'uq_work_items_external',
  'uq_work_items_sequence',
  'uq_workflow_transitions_pair',
  'uq_workflow_states_state',
  'uq_workflow_states_default',
  'uq_workflows_active',
  'uq_workflows_default',
  'uq_workflows_name',
];

/** The counter triggers' functions (migrations WorkItemCountSlots .. WorkItemLiveSetChanges): ON CONFLICT targets. */
const COUNTER_FUNCTIONS = /^wt_(work_item_assignee_counts|work_item_label_counts|work_items_spc|work_items_count)/;

export class DistributionReadyKeys1795640000000 implements MigrationInterface {
  name = 'DistributionReadyKeys1795640000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const t of ID_KEYED_TENANT_TABLES) {
      await this.rekey(q, t, ['workspace_id', 'id']);
      await q.query(`CREATE INDEX "ix_${t}_by_id" ON "${t}" ("id")`);
    }
    for (const [t, cols] of Object.entries(COMPOSITE_KEYED_TENANT_TABLES)) {
      await this.rekey(q, t, ['workspace_id', ...cols]);
      if (!t.endsWith('_counts')) await q.query(`CREATE INDEX "ix_${t}_by_key" ON "${t}" (${cols.join(', ')})`);
    }
    for (const name of UNIQUE_INDEXES) {
      await this.redefineIndex(q, name, (def) => def.replace(/ USING btree \(/, ' USING btree (workspace_id, '));
    }
    await this.rewriteCounterFunctions(q, (body) => body.replace(/ON CONFLICT \(/g, 'ON CONFLICT (workspace_id, '));
  }

  public async down(q: QueryRunner): Promise<void> {
    await this.rewriteCounterFunctions(q, (body) => body.replace(/ON CONFLICT \(workspace_id, /g, 'ON CONFLICT ('));
    for (const name of UNIQUE_INDEXES) {
      await this.redefineIndex(q, name, (def) => def.replace(/ USING btree \(workspace_id, /, ' USING btree ('));
    }
    for (const [t, cols] of Object.entries(COMPOSITE_KEYED_TENANT_TABLES)) {
      await q.query(`DROP INDEX IF EXISTS "ix_${t}_by_key"`);
      await this.rekey(q, t, cols);
    }
    for (const t of ID_KEYED_TENANT_TABLES) {
      await q.query(`DROP INDEX "ix_${t}_by_id"`);
      await this.rekey(q, t, ['id']);
    }
  }

  /** Replaces the table's primary key (whatever its generated name) by one named PK_<table> on `cols`. */
  private async rekey(q: QueryRunner, table: string, cols: string[]): Promise<void> {
    const [pk] = await q.query(`SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`, [
      table,
    ]);
    if (pk) await q.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${pk.conname}"`);
    await q.query(`ALTER TABLE "${table}" ADD CONSTRAINT "PK_${table}" PRIMARY KEY (${cols.join(', ')})`);
  }

  private async redefineIndex(q: QueryRunner, name: string, change: (def: string) => string): Promise<void> {
    const [row] = await q.query(`SELECT pg_get_indexdef($1::regclass) AS def`, [`public.${name}`]);
    await q.query(`DROP INDEX "${name}"`);
    await q.query(change(row.def));
  }

  private async rewriteCounterFunctions(q: QueryRunner, change: (body: string) => string): Promise<void> {
    const fns: Array<{ proname: string; def: string }> = await q.query(
      `SELECT p.proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p
         JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
        WHERE p.prosrc LIKE '%ON CONFLICT (%'`,
    );
    for (const f of fns.filter((x) => COUNTER_FUNCTIONS.test(x.proname))) await q.query(change(f.def));
  }
}
