'use strict';
/**
 * The rows of `npm run bench`, each an autocannon configuration. The first is the ceiling (bare Fastify + pg
 * serving the service's list page 1 statement); `--rows` picks the others by id (DEFAULT_ROWS without it,
 * `--rows all` for every row).
 */

const DEFAULT_ROWS = [
  'list',
  'fields',
  'cursor',
  'offset',
  'filtered',
  'workspace',
  'get',
  'identifier',
  'create',
  'patch',
];
const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'];

/**
 * A request of the mixed row: 70% reads (list page 1 and get by id alike), 20% patches, 10% creates (into
 * `creates`, the items path of another project, default `items`: see scenarios()). Each gets headers of its own:
 * autocannon writes a body's content-length into the headers object it is handed, and a GET sent with a POST's
 * content-length left over is a malformed request (400s counted as errors before 2026-11-27).
 */
function mixedRequest(req, items, pick, creates = items) {
  const headers = Object.fromEntries(
    Object.entries(req.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-length'),
  );
  const request = (method, path, body) => ({ ...req, headers, method, path, body });
  const x = Math.random();
  if (x < 0.35) return request('GET', `${items}?per_page=50`, undefined);
  if (x < 0.7) return request('GET', `${items}${pick().id}/`, undefined);
  if (x < 0.9) {
    const body = JSON.stringify({ priority: PRIORITIES[Math.floor(Math.random() * 5)], name: `Patched ${Date.now()}` });
    return request('PATCH', `${items}${pick().id}/`, body);
  }
  return request('POST', creates, JSON.stringify({ name: 'Created by the benchmark' }));
}

/** Reads of the main project's lists. */
function listRows(S, items, headers, seeded, cursor) {
  return [
    { id: 'list', name: 'list page 1 (per_page 50)', opts: { url: `${S}${items}?per_page=50`, headers } },
    // ?fields= must make a page cheaper, not dearer: the id arrays it leaves out are not read (src/common/fields).
    {
      id: 'fields',
      name: 'list page 1 ?fields=id,name',
      opts: { url: `${S}${items}?per_page=50&fields=id,name`, headers },
    },
    {
      id: 'expand',
      name: 'list page 1 ?expand=state,labels,assignees',
      opts: { url: `${S}${items}?per_page=50&expand=state,labels,assignees`, headers },
    },
    // Measured against the ceiling serving the same 200-row page (`ceiling200`), not the 50-row one.
    {
      id: 'per200',
      name: 'list per_page=200 (vs the 200-row ceiling)',
      ceiling: 'ceiling200',
      opts: { url: `${S}${items}?per_page=200`, headers },
    },
    {
      id: 'cursor',
      name: `cursor page ${seeded.deep} rows deep`,
      opts: { url: `${S}${items}?per_page=50&order_by=-created_at&cursor=${cursor}`, headers },
    },
    { id: 'offset', name: 'offset 10000', opts: { url: `${S}${items}?per_page=50&offset=10000`, headers } },
    {
      id: 'workspace',
      name: 'workspace-wide list page 1 (all projects)',
      opts: { url: `${S}/api/v2/workspaces/bench/work-items/?per_page=50`, headers },
    },
    {
      id: 'filtered',
      name: 'filtered (state_group + assignee_id)',
      opts: { url: `${S}${items}?per_page=50&state_group=started&assignee_id=${seeded.members[0]}`, headers },
    },
  ];
}

/** Single items, writes and the mixed workload (its creates into `creates`). */
function itemRows(S, items, headers, pick, creates) {
  const one = (name, id, request) => ({ id, name, opts: { url: S, headers, requests: [request] } });
  return [
    one('get by id ?expand=state,labels,assignees', 'get', {
      method: 'GET',
      setupRequest: (req) => ({ ...req, path: `${items}${pick().id}/?expand=state,labels,assignees` }),
    }),
    one('get by identifier', 'identifier', {
      method: 'GET',
      setupRequest: (req) => ({ ...req, path: `/api/v2/workspaces/bench/work-items/BENCH-${pick().sequence_id}/` }),
    }),
    {
      id: 'create',
      name: 'create',
      opts: {
        url: `${S}${creates}`,
        headers,
        method: 'POST',
        body: JSON.stringify({ name: 'Created by the benchmark' }),
      },
    },
    one('patch', 'patch', {
      method: 'PATCH',
      setupRequest: (req) => ({
        ...req,
        path: `${items}${pick().id}/`,
        body: JSON.stringify({ priority: PRIORITIES[Math.floor(Math.random() * 5)], name: `Patched ${Date.now()}` }),
      }),
    }),
    {
      ...one('mixed 70% read, 20% patch, 10% create; 64 conn.', 'mixed', {
        method: 'GET',
        setupRequest: (req) => mixedRequest(req, items, pick, creates),
      }),
      connections: 64,
    },
  ];
}

/**
 * Every row: the ceiling first. Creates (the create row's, the mixed row's) go to the other workspace's project
 * (`seeded.creates`), not the main one: created in the main project they became its newest items, so every list
 * row's page 1 (and the ceiling's) read items without assignees or labels from the first create slice on, while
 * the deep cursor read seeded ones. The lists now read the same seeded items in every slice, whatever the order.
 */
function scenarios({ S, bare, bare200, key, main, seeded }) {
  const items = `/api/v2/workspaces/bench/projects/${main.id}/work-items/`;
  const creates = `/api/v2/workspaces/noise/projects/${seeded.creates}/work-items/`;
  const headers = { 'X-Api-Key': key, 'content-type': 'application/json' };
  const pick = () => seeded.sample[Math.floor(Math.random() * seeded.sample.length)];
  const cursor = Buffer.from(JSON.stringify(['-created_at', seeded.anchor.v, seeded.anchor.id]), 'utf8').toString(
    'base64url',
  );
  return [
    { id: 'ceiling', name: 'bare Fastify + pg, same list SQL (ceiling)', opts: { url: `${bare}/list` } },
    {
      id: 'ceiling200',
      name: 'bare Fastify + pg, per_page=200 SQL (its ceiling)',
      opts: { url: `${bare200 ?? bare}/list?per_page=200` },
    },
    ...listRows(S, items, headers, seeded, cursor),
    ...itemRows(S, items, headers, pick, creates),
  ];
}

/** The ceiling and the rows `--rows a,b,c` names (`all`: every row), in the order above. */
function selectRows(all, wanted) {
  const ids = !wanted ? DEFAULT_ROWS : wanted === 'all' ? all.map((r) => r.id) : wanted.split(',');
  const unknown = ids.filter((id) => !all.some((r) => r.id === id));
  if (unknown.length)
    throw new Error(`--rows: unknown ${unknown.join(', ')}; rows: ${all.map((r) => r.id).join(', ')}`);
  // A row measured against a ceiling of its own (`ceiling`) brings that ceiling along.
  const ownCeilings = all.filter((r) => ids.includes(r.id) && r.ceiling).map((r) => r.ceiling);
  return all.filter((r) => r.id === 'ceiling' || ids.includes(r.id) || ownCeilings.includes(r.id));
}

module.exports = { scenarios, selectRows, DEFAULT_ROWS, mixedRequest };
