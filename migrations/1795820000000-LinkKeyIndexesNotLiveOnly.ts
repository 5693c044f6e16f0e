import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexOnline, dropIndexOnline } from './online-index';

/** The link tables, their key and the (key, work_item_id) index over every row that this migration narrows. */
const LINKS = [
  { table: 'work_item_assignees', key: 'assignee_id', index: 'ix_work_item_assignees_assignee' },
  { table: 'work_item_labels', key: 'label_id', index: 'ix_work_item_labels_label' },
] as const;

/**
 * Issue 27 (a PATCH at a million items): every write of a link row inserted an entry into all five of its table's
 * indexes, `ix_<link>_<key>` (key, work_item_id) among them; a PATCH that changes an item's priority rewrites the
 * item's link rows (their priority copy), so it paid that index once per link. At a million items the link indexes
 * are far larger than the server's cache and each entry written reads its leaf page first (docs/work-items-plans.md,
 * "One link index less").
 *
 * What the index answered is now answered elsewhere: a probe of one (item, key) names the workspace and reads the
 * primary key (workspace_id, work_item_id, key); a key's live links are the leading range of `ix_<link>_list` (and
 * of the group and priority indexes). Only a key's links of deleted or archived items (a label's deletion strips
 * them too) had no other index: `ix_<link>_not_live` (key, work_item_id) WHERE NOT item_live keeps them, and a live
 * item's link writes never touch it.
 *
 * Online (`transaction = false`): the narrow index is built CONCURRENTLY before the wide one goes (DROP INDEX
 * CONCURRENTLY), so a label deletion always has an index to read. Instances of the previous release send the same
 * statements; PostgreSQL plans them on the indexes that remain. Safe to run again.
 */
export class LinkKeyIndexesNotLiveOnly1795820000000 implements MigrationInterface {
  name = 'LinkKeyIndexesNotLiveOnly1795820000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const { table, key } of LINKS) {
      await createIndexOnline(q, `ix_${table}_not_live`, `"${table}" ("${key}", "work_item_id") WHERE NOT "item_live"`);
    }
    for (const { index } of LINKS) await dropIndexOnline(q, index);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const { table, key, index } of LINKS) {
      await createIndexOnline(q, index, `"${table}" ("${key}", "work_item_id")`);
    }
    for (const { table } of LINKS) await dropIndexOnline(q, `ix_${table}_not_live`);
  }
}
