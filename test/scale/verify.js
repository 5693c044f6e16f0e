'use strict';
/** After the load: what the database holds against what the workers were told (their journals). */
const lib = require('../../bench/lib');

/** Every acknowledged create is there with its sequence number; every item holds its last acknowledged name. */
function checkItems(workers, rows) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = { acked: 0, lost: [], wrongSequence: [], lostPatch: [], patchUnknown: 0 };
  for (const item of workers.flatMap((w) => w.items)) {
    out.acked++;
    const row = byId.get(item.id);
    if (!row) out.lost.push(item.id);
    else if (row.sequence_id !== item.sequence) out.wrongSequence.push(item.id);
    // A patch that got no answer may or may not have landed: then the name is the last acknowledged or a later one.
    else if (![item.acked, ...item.after].includes(row.name)) out.lostPatch.push({ id: item.id, want: item.acked });
    if (item.after.length) out.patchUnknown++;
  }
  return out;
}

/** Every user whose last membership change was acknowledged has exactly that membership. */
function checkMemberships(workers, rows) {
  const live = new Map(rows.map((r) => [r.member_id, r]));
  const out = { checked: 0, unknown: 0, wrong: [] };
  for (const user of workers.flatMap((w) => w.users)) {
    if (user.uncertain) {
      out.unknown++;
      continue;
    }
    out.checked++;
    const row = live.get(user.id);
    const same = user.state ? row && row.id === user.state.id && row.role === user.state.role : !row;
    if (!same) out.wrong.push({ user: user.id, want: user.state, found: row ?? null });
  }
  return out;
}

/** Sequence numbers: unique in the project (every row, deleted ones too) and among the acknowledged creates. */
function checkSequences(workers, duplicates) {
  const seqs = workers.flatMap((w) => w.items.map((i) => i.sequence));
  return { duplicatesInDb: duplicates.length, duplicatesAcked: seqs.length - new Set(seqs).size };
}

async function verify(dbUrl, projectId, workers) {
  return lib.sql(dbUrl, async (c) => {
    const items = (await c.query(`SELECT id, sequence_id, name FROM work_items WHERE project_id = $1`, [projectId]))
      .rows;
    const members = (
      await c.query(`SELECT id, member_id, role FROM project_members WHERE project_id = $1 AND deleted_at IS NULL`, [
        projectId,
      ])
    ).rows;
    const dups = (
      await c.query(
        `SELECT sequence_id FROM work_items WHERE project_id = $1 GROUP BY sequence_id HAVING count(*) > 1`,
        [projectId],
      )
    ).rows;
    const unackedCreates = workers.reduce((n, w) => n + w.unackedCreates, 0);
    return {
      items: checkItems(workers, items),
      members: checkMemberships(workers, members),
      sequences: checkSequences(workers, dups),
      rowsInDb: items.length,
      unackedCreates,
    };
  });
}

module.exports = { verify };
