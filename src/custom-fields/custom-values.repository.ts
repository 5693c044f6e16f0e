import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';
import { Viewer } from '../common/auth/roles';
import { LIVE_PROJECT_OF, READABLE_PROJECT } from '../work-items/work-items.queries';
import { writtenRows } from '../work-item-types/sql-result';
import { ValueRefs } from '../work-item-properties/property-rules';
import { CONTEXT_TIER_SQL, contextMatchesSql } from '../work-item-property-contexts/context-resolution';

/**
 * Every statement of the catalogue against stored values: `work_items.custom_values`, a jsonb object
 * keyed by property id. Clean-ups are set-based (one statement each), never a loop over work items.
 */
@Injectable()
export class CustomValuesRepository {
  constructor(private readonly ds: DataSource) {}

  /** Does a live (not deleted) work item use the type? Archived ones count. */
  async typeInUse(workspaceId: string, typeId: string, db: Queryable = this.ds): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM work_items WHERE workspace_id = $1 AND type_id = $2 AND deleted_at IS NULL LIMIT 1`,
      [workspaceId, typeId],
    );
    return rows.length > 0;
  }

  /**
   * Writers of `custom_values` (work item create and PATCH with a type) hold the workspace's values lock
   * shared from before they read the definitions until they commit; the pruning below takes it exclusive.
   * So a prune waits for writes validated against the old catalogue and then prunes what they stored, and a
   * write that starts meanwhile validates against the new one. (Row locks cannot do this: a value is a key
   * of a JSON object, not a row.)
   */
  async holdForWrite(workspaceId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock_shared(hashtext('custom_values:' || $1::text))`, [workspaceId]);
  }

  /**
   * Exclusive: a catalogue change that prunes values takes it as its transaction's first lock, before any
   * row lock (a writer holding it shared may be waiting for a row such a change locks: a type, a property).
   * Re-entrant, so the prune below taking it again is free.
   */
  async lockForPrune(workspaceId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('custom_values:' || $1::text))`, [workspaceId]);
  }

  /** Removes a property's values: everywhere, or only on work items of one type (detach). */
  async stripProperty(workspaceId: string, propertyId: string, db: Queryable, typeId?: string): Promise<number> {
    await this.lockForPrune(workspaceId, db);
    const rows = writtenRows(
      await db.query(
        `UPDATE work_items SET custom_values = custom_values - $2::text
        WHERE workspace_id = $1 AND custom_values ? $2::text ${typeId ? 'AND type_id = $3' : ''} RETURNING 1`,
        typeId ? [workspaceId, propertyId, typeId] : [workspaceId, propertyId],
      ),
    );
    return rows.length;
  }

  /** Removes option ids from a property's values (a single value goes; a multi value loses the ids). */
  async stripOptions(workspaceId: string, propertyId: string, optionIds: string[], db: Queryable): Promise<number> {
    if (!optionIds.length) return 0;
    await this.lockForPrune(workspaceId, db);
    const rows = writtenRows(
      await db.query(
        `WITH hit AS (
         SELECT w.id, w.custom_values -> $2::text AS v FROM work_items w
          WHERE w.workspace_id = $1 AND w.custom_values ? $2::text
            AND (w.custom_values ->> $2::text = ANY($3::text[])
                 OR (jsonb_typeof(w.custom_values -> $2::text) = 'array' AND (w.custom_values -> $2::text) ?| $3::text[]))
       ), next AS (
         SELECT hit.id, CASE WHEN jsonb_typeof(hit.v) = 'array' THEN
                  (SELECT jsonb_agg(e ORDER BY ord) FROM jsonb_array_elements(hit.v) WITH ORDINALITY AS x(e, ord)
                    WHERE NOT ((e #>> '{}') = ANY($3::text[])))
                ELSE NULL END AS v
           FROM hit
       )
       UPDATE work_items w SET custom_values = CASE WHEN next.v IS NULL THEN w.custom_values - $2::text
                                                    ELSE jsonb_set(w.custom_values, ARRAY[$2::text], next.v) END
         FROM next WHERE w.workspace_id = $1 AND w.id = next.id RETURNING 1`,
        [workspaceId, propertyId, optionIds],
      ),
    );
    return rows.length;
  }

  /**
   * Re-resolves a workspace-level property on every work item holding a value for it, after its
   * contexts changed: a value whose work item no longer falls in any context is removed, and for
   * OPTION properties the option ids the winning context does not offer are removed.
   */
  async reconcileWorkspaceProperty(
    workspaceId: string,
    propertyId: string,
    isOption: boolean,
    db: Queryable,
  ): Promise<number> {
    await this.lockForPrune(workspaceId, db);
    const rows = writtenRows(
      await db.query(
        `WITH held AS (
         SELECT w.id, w.project_id, w.type_id, w.custom_values -> $2::text AS v FROM work_items w
          WHERE w.workspace_id = $1 AND w.custom_values ? $2::text
       ), won AS (
         SELECT held.*, (SELECT c.id FROM work_item_property_contexts c
                          WHERE c.workspace_id = $1 AND c.property_id = $2::text::uuid AND c.deleted_at IS NULL AND ${contextMatchesSql('c', 'held.project_id', 'held.type_id')}
                          ORDER BY ${CONTEXT_TIER_SQL('c')}, c.sort_order, c.id LIMIT 1) AS context_id
           FROM held
       ), next AS (
         SELECT won.id, won.v AS old_v, CASE
           WHEN won.context_id IS NULL THEN NULL
           WHEN NOT $3::boolean THEN won.v
           WHEN jsonb_typeof(won.v) = 'array' THEN
             (SELECT jsonb_agg(e ORDER BY ord) FROM jsonb_array_elements(won.v) WITH ORDINALITY AS x(e, ord)
               WHERE EXISTS (SELECT 1 FROM work_item_property_context_options co
                              WHERE co.workspace_id = $1 AND co.context_id = won.context_id AND co.option_id::text = (e #>> '{}')))
           WHEN EXISTS (SELECT 1 FROM work_item_property_context_options co
                         WHERE co.workspace_id = $1 AND co.context_id = won.context_id AND co.option_id::text = (won.v #>> '{}')) THEN won.v
           ELSE NULL END AS v
           FROM won
       )
       UPDATE work_items w SET custom_values = CASE WHEN next.v IS NULL THEN w.custom_values - $2::text
                                                    ELSE jsonb_set(w.custom_values, ARRAY[$2::text], next.v) END
         FROM next WHERE w.workspace_id = $1 AND w.id = next.id AND next.v IS DISTINCT FROM next.old_v RETURNING 1`,
        [workspaceId, propertyId, isOption],
      ),
    );
    return rows.length;
  }

  /**
   * The referenced records that do not exist (live work items of the workspace, active members). With a
   * `viewer`, the work items among `viewer.issues` must also be in projects the viewer can read: a value a
   * member picks may not point into a project hidden from them (nor tell whether such an item exists).
   */
  async missingRefs(
    workspaceId: string,
    refs: ValueRefs,
    db: Queryable = this.ds,
    viewer?: { viewer: Viewer; issues: Set<string> },
  ): Promise<string[]> {
    const missing: string[] = [];
    if (refs.issues.length) {
      const rows: Array<{ id: string; readable: boolean }> = await db.query(
        `SELECT id, ${READABLE_PROJECT('$1', 'w.project_id', '$3', '$4')} AS readable
           FROM work_items w WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL AND ${LIVE_PROJECT_OF('w')}`,
        [workspaceId, refs.issues, viewer?.viewer.userId ?? null, viewer ? viewer.viewer.allProjects : true],
      );
      const found = new Set(rows.filter((r) => r.readable || !viewer?.issues.has(r.id)).map((r) => r.id));
      missing.push(...refs.issues.filter((i) => !found.has(i)));
    }
    if (refs.users.length) {
      const rows: Array<{ member_id: string }> = await db.query(
        `SELECT member_id FROM workspace_members WHERE workspace_id = $1 AND member_id = ANY($2::uuid[]) AND deleted_at IS NULL AND is_active`,
        [workspaceId, refs.users],
      );
      const found = new Set(rows.map((r) => r.member_id));
      missing.push(...refs.users.filter((i) => !found.has(i)));
    }
    return [...new Set(missing)];
  }
}
