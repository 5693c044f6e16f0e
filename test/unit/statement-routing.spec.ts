import { Offender, ratchet, RoutingChecker } from '../helpers/statement-routing';

describe('statement routing check (a statement Citus can send to one shard)', () => {
  let c: RoutingChecker;
  beforeAll(async () => {
    c = await RoutingChecker.create([
      'work_items',
      'work_item_labels',
      'projects',
      'labels',
      'workspace_members',
      'project_members',
    ]);
  });

  it('accepts statements that pin every tenant table to one workspace', () => {
    expect(c.check('SELECT * FROM work_items WHERE workspace_id = $1 AND id = $2')).toEqual([]);
    expect(c.check('SELECT w.id FROM work_items w WHERE w.project_id = $2 AND w.workspace_id = $1::uuid')).toEqual([]);
    expect(
      c.check(`SELECT w.id FROM work_items w JOIN work_item_labels l
                 ON l.work_item_id = w.id AND l.workspace_id = w.workspace_id WHERE w.workspace_id = $1`),
    ).toEqual([]);
    expect(
      c.check(`UPDATE work_items w SET name = $3 FROM projects p
                WHERE p.id = w.project_id AND p.workspace_id = $1 AND w.workspace_id = p.workspace_id AND w.id = $2`),
    ).toEqual([]);
    expect(c.check('DELETE FROM work_item_labels WHERE workspace_id = $1 AND work_item_id = ANY($2)')).toEqual([]);
    expect(c.check('INSERT INTO labels (workspace_id, project_id, name) VALUES ($1, $2, $3) RETURNING id')).toEqual([]);
    // A correlated sub-select pinned through the outer table, and a CTE.
    expect(
      c.check(`WITH x AS (SELECT id FROM work_items WHERE workspace_id = $1)
               SELECT p.id, (SELECT count(*) FROM work_items w WHERE w.workspace_id = p.workspace_id AND w.project_id = p.id)
                 FROM projects p JOIN x ON true WHERE p.workspace_id = $1`),
    ).toEqual([]);
    // Tables that are not tenant tables need nothing.
    expect(c.check('SELECT * FROM users WHERE id = $1')).toEqual([]);
  });

  it('names each tenant table a statement does not pin, or pins to several workspaces', () => {
    expect(c.check('SELECT * FROM work_items WHERE id = $1')).toEqual([
      'work_items (work_items) has no workspace_id equality',
    ]);
    expect(c.check('UPDATE work_items SET name = $2 WHERE id = $1')).toEqual([
      'work_items (work_items) has no workspace_id equality',
    ]);
    // An OR does not pin; neither does a join on anything but the workspace.
    expect(c.check('SELECT * FROM labels l WHERE l.workspace_id = $1 OR l.id = $2')).toEqual([
      'labels (l) has no workspace_id equality',
    ]);
    expect(
      c.check('SELECT * FROM work_items w JOIN work_item_labels l ON l.work_item_id = w.id WHERE w.workspace_id = $1'),
    ).toEqual(['work_item_labels (l) has no workspace_id equality']);
    expect(c.check('INSERT INTO labels (project_id, name) VALUES ($1, $2)')).toEqual([
      'labels (labels) has no workspace_id equality',
    ]);
    expect(c.check('SELECT * FROM projects p JOIN labels l ON l.workspace_id = $2 WHERE p.workspace_id = $1')).toEqual([
      'tenant tables of different workspaces in one statement: value:$1, value:$2',
    ]);
  });

  it('accepts the credential lookup: reference tables first, every tenant table LEFT JOINed on the workspace id', () => {
    const lookup = (pin: (alias: string) => string) =>
      `WITH cred AS (SELECT id, user_id FROM api_keys WHERE key_hash = $1)
       SELECT u.id, w.id, wm.role, p.id, pm.role FROM cred
         JOIN users u ON u.id = cred.user_id
         LEFT JOIN workspaces w ON w.id = $2::uuid AND w.slug = $5
         LEFT JOIN workspace_members wm ON ${pin('wm')} AND w.id IS NOT NULL AND wm.member_id = u.id
         LEFT JOIN projects p ON ${pin('p')} AND wm.id IS NOT NULL AND p.id = $3
         LEFT JOIN project_members pm ON ${pin('pm')} AND pm.project_id = p.id AND pm.member_id = u.id`;
    expect(c.check(lookup((a) => `${a}.workspace_id = $2::uuid`))).toEqual([]);
    // The workspace found by its slug in the same statement: not routable.
    expect(c.check(lookup((a) => `${a}.workspace_id = w.id`))).toEqual([
      'workspace_members (wm) has no workspace_id equality',
      'projects (p) has no workspace_id equality',
      'project_members (pm) has no workspace_id equality',
    ]);
  });

  it('the ratchet fails a new offender and a listed one that no longer offends', () => {
    const offender = (fingerprint: string): Offender => ({ fingerprint, problems: ['x'], sql: fingerprint });
    const listed = [offender('a'), offender('b')];
    expect(ratchet([offender('a'), offender('b')], listed)).toEqual({ unlisted: [], stale: [] });
    expect(ratchet([offender('a'), offender('b'), offender('new')], listed).unlisted).toEqual([offender('new')]);
    expect(ratchet([offender('a')], listed).stale).toEqual([offender('b')]);
  });
});
