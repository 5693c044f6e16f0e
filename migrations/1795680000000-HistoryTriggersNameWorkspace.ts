import { MigrationInterface, QueryRunner } from 'typeorm';
import { TRIGGERS } from './1795510000000-WorkItemLinksRelationsHistory';
import { timeOrdered } from './1795665000000-ActivityTimeOrderedIds';
import { createIndexOnline, dropIndexOnline } from './online-index';

/**
 * Issue 18 (and issue 25's plain id indexes): the history triggers on assignee, label and module link rows
 * (`wt_activity_{assignee,label,module}_{ins,del}`) joined each row to its work item by id alone, the last lookup
 * of work_items that did not name the workspace and the reason DropPlainIdIndexes kept `ix_work_items_by_id`. They
 * now equate the link row's workspace first (`w.workspace_id = m.workspace_id AND w.id = m.work_item_id`), which the
 * (workspace_id, id) primary key answers, and the plain index goes (docs/scaling.md, "The plain ix_<table>_by_id
 * indexes"). The bodies are otherwise those ActivityTimeOrderedIds wrote (time-ordered entry ids).
 */
export const BY_ID = 'JOIN work_items w ON w.id = m.work_item_id';
export const BY_WORKSPACE = 'JOIN work_items w ON w.workspace_id = m.workspace_id AND w.id = m.work_item_id';

/** The membership triggers (the only history bodies with BY_ID): name and body as ActivityTimeOrderedIds left them. */
const MEMBERSHIP = TRIGGERS.filter(([, , , body]) => body.includes(BY_ID)).map(([, name, , body]) => ({
  name,
  body,
}));

const fn = (name: string, body: string) =>
  `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN NULL; END $$`;

export class HistoryTriggersNameWorkspace1795680000000 implements MigrationInterface {
  name = 'HistoryTriggersNameWorkspace1795680000000';
  // Online (migrations/online-index.ts): work_items is among the largest tables. Each step is safe to run again
  // (CREATE OR REPLACE, DROP ... IF EXISTS), so a run interrupted between them can be repeated.
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    if (MEMBERSHIP.length !== 6) throw new Error(`expected 6 membership history triggers, found ${MEMBERSHIP.length}`);
    for (const m of MEMBERSHIP) await q.query(fn(m.name, timeOrdered(m.body.replace(BY_ID, BY_WORKSPACE))));
    await dropIndexOnline(q, 'ix_work_items_by_id');
  }

  public async down(q: QueryRunner): Promise<void> {
    await createIndexOnline(q, 'ix_work_items_by_id', `"work_items" ("id")`);
    for (const m of MEMBERSHIP) await q.query(fn(m.name, timeOrdered(m.body)));
  }
}
