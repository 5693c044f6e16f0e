'use strict';
/*
 * node bench/heap-by-package.js FILE.heapsnapshot
 *
 * Attributes a V8 heap snapshot (issue 27, docs/read-path-profile.md "Peak memory, third pass"): self sizes by
 * node type and name, a dominator tree (retained sizes), then per package (node_modules/<name>, ours = dist/) the
 * source text V8 keeps of its modules and the retained size of its functions' SharedFunctionInfos (bytecode,
 * scope infos, feedback metadata), the small strings by their immediate dominator, and the largest retained
 * objects. Take the snapshot with `node --heapsnapshot-signal=SIGUSR2 ...` or bench/peak-probe.js.
 */
const fs = require('fs');
const snap = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = snap.snapshot.meta;
const NF = m.node_fields.length,
  EF = m.edge_fields.length;
const nTypes = m.node_fields.indexOf('type'),
  nName = m.node_fields.indexOf('name'),
  nSize = m.node_fields.indexOf('self_size'),
  nEc = m.node_fields.indexOf('edge_count');
const eType = m.edge_fields.indexOf('type'),
  eName = m.edge_fields.indexOf('name_or_index'),
  eTo = m.edge_fields.indexOf('to_node');
const nodeTypes = m.node_types[0],
  edgeTypes = m.edge_types[0];
const N = snap.nodes,
  E = snap.edges,
  S = snap.strings;
const count = N.length / NF;
const firstEdge = new Uint32Array(count + 1);
for (let i = 0, e = 0; i < count; i++) {
  firstEdge[i] = e;
  e += N[i * NF + nEc] * EF;
}
firstEdge[count] = E.length;
const type = (i) => nodeTypes[N[i * NF + nTypes]];
const name = (i) => S[N[i * NF + nName]];
const size = (i) => N[i * NF + nSize];
function* edges(i) {
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
    const t = edgeTypes[E[e + eType]];
    yield { t, n: t === 'element' || t === 'hidden' ? E[e + eName] : S[E[e + eName]], to: E[e + eTo] / NF };
  }
}
let total = 0;
const byType = new Map();
for (let i = 0; i < count; i++) {
  total += size(i);
  const k = type(i);
  byType.set(k, (byType.get(k) || 0) + size(i));
}
const MB = (x) => (x / 1048576).toFixed(2);
console.log('total', MB(total), 'MB in', count, 'nodes');
console.log(
  [...byType]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${MB(v)}`)
    .join(', '),
);
// by type+name for code/object
const byName = new Map();
for (let i = 0; i < count; i++) {
  const t = type(i);
  if (t === 'string' || t === 'concatenated string' || t === 'sliced string') continue;
  const k = t + ':' + name(i).slice(0, 60);
  byName.set(k, (byName.get(k) || 0) + size(i));
}
console.log('\ntop type:name self sizes');
for (const [k, v] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(MB(v).padStart(8), k);
// dominators (Cooper-Harvey-Kennedy on post order), root = node 0
const rpo = [],
  post = new Int32Array(count).fill(-1),
  visited = new Uint8Array(count);
{
  const stack = [0],
    iter = [firstEdge[0]];
  visited[0] = 1;
  let order = 0;
  while (stack.length) {
    const v = stack[stack.length - 1];
    let e = iter[iter.length - 1];
    let pushed = false;
    while (e < firstEdge[v + 1]) {
      const t = edgeTypes[E[e + eType]];
      const to = E[e + eTo] / NF;
      e += EF;
      if (t === 'weak' || t === 'shortcut') continue;
      if (!visited[to]) {
        visited[to] = 1;
        iter[iter.length - 1] = e;
        stack.push(to);
        iter.push(firstEdge[to]);
        pushed = true;
        break;
      }
    }
    if (!pushed) {
      stack.pop();
      iter.pop();
      post[v] = order++;
      rpo.push(v);
    }
  }
}
rpo.reverse();
const predStart = new Uint32Array(count + 1);
const predCount = new Uint32Array(count);
for (let i = 0; i < count; i++)
  if (visited[i])
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
      const t = edgeTypes[E[e + eType]];
      if (t === 'weak' || t === 'shortcut') continue;
      predCount[E[e + eTo] / NF]++;
    }
for (let i = 0; i < count; i++) predStart[i + 1] = predStart[i] + predCount[i];
const predArr = new Uint32Array(predStart[count]);
const fill = predStart.slice(0, count);
for (let i = 0; i < count; i++)
  if (visited[i])
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
      const t = edgeTypes[E[e + eType]];
      if (t === 'weak' || t === 'shortcut') continue;
      const to = E[e + eTo] / NF;
      predArr[fill[to]++] = i;
    }
const idom = new Int32Array(count).fill(-1);
idom[0] = 0;
const intersect = (a, b) => {
  while (a !== b) {
    while (post[a] < post[b]) a = idom[a];
    while (post[b] < post[a]) b = idom[b];
  }
  return a;
};
for (let changed = true; changed;) {
  changed = false;
  for (const v of rpo) {
    if (v === 0) continue;
    let nd = -1;
    for (let p = predStart[v]; p < predStart[v + 1]; p++) {
      const u = predArr[p];
      if (idom[u] === -1) continue;
      nd = nd === -1 ? u : intersect(u, nd);
    }
    if (nd !== idom[v]) {
      idom[v] = nd;
      changed = true;
    }
  }
}
const retained = new Float64Array(count);
for (let k = rpo.length - 1; k >= 0; k--) {
  const v = rpo[k];
  retained[v] += size(v);
  if (v !== 0) retained[idom[v]] += retained[v];
}
console.log('\nreachable retained', MB(retained[0]));
// package of a script path
const pkg = (p) => {
  if (!p) return '(no script)';
  const i = p.lastIndexOf('node_modules/');
  if (i >= 0) {
    const r = p.slice(i + 13).split('/');
    return r[0].startsWith('@') ? r[0] + '/' + r[1] : r[0];
  }
  if (p.includes('/dist/')) return '(ours dist)';
  if (p.startsWith('node:')) return '(node internals)';
  return p.length > 50 ? '(other) ' + p.slice(0, 50) : '(other) ' + p;
};
const scriptPkg = new Map();
const src = new Map();
const code = new Map();
for (let i = 0; i < count; i++) {
  if (type(i) !== 'code') continue;
  let srcNode = -1;
  for (const ed of edges(i)) if (ed.n === 'source' && ed.t === 'internal') srcNode = ed.to;
  if (srcNode < 0) continue;
  const nm = name(i);
  const p = pkg(nm.replace('file://', ''));
  scriptPkg.set(i, p);
  src.set(p, (src.get(p) || 0) + size(srcNode));
}
for (let i = 0; i < count; i++) {
  let p = null;
  for (const ed of edges(i))
    if (ed.n === 'script' && scriptPkg.has(ed.to)) {
      p = scriptPkg.get(ed.to);
      break;
    }
  if (p === null) continue;
  code.set(p, (code.get(p) || 0) + retained[i]);
}
console.log('scripts seen', scriptPkg.size);
const keys = new Set([...src.keys(), ...code.keys()]);
const rows = [...keys].map((k) => [k, src.get(k) || 0, code.get(k) || 0]).sort((a, b) => b[1] + b[2] - a[1] - a[2]);
let ts = 0,
  tc = 0;
for (const r of rows) {
  ts += r[1];
  tc += r[2];
}
console.log('\nsource + SFI-retained code by package (MB): total source', MB(ts), 'code', MB(tc));
for (const r of rows.slice(0, 400)) console.log(MB(r[1]).padStart(7), MB(r[2]).padStart(7), r[0]);
// strings: who holds small strings? classify by first retainer
const strHolder = new Map();
let strTotal = 0;
for (let i = 0; i < count; i++) {
  const t = type(i);
  if (t !== 'string' && t !== 'concatenated string' && t !== 'sliced string') continue;
  if (size(i) > 20000) continue;
  strTotal += size(i);
  const d = idom[i];
  const k = d < 0 ? '(unreachable)' : type(d) + ':' + name(d).slice(0, 50);
  strHolder.set(k, (strHolder.get(k) || 0) + size(i));
}
console.log('\nsmall strings', MB(strTotal), 'by immediate dominator');
for (const [k, v] of [...strHolder].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(MB(v).padStart(8), k);
// top retained non-root-ish nodes with distinct names (depth-limited: children of root's children)
const top = [];
for (let i = 1; i < count; i++) if (retained[i] > 300000 && idom[i] >= 0) top.push(i);
top.sort((a, b) => retained[b] - retained[a]);
console.log('\nlargest retained (> 300 KB)');
for (const i of top.slice(0, 60))
  console.log(
    MB(retained[i]).padStart(8),
    type(i),
    name(i).slice(0, 80),
    '<- idom',
    type(idom[i]),
    name(idom[i]).slice(0, 40),
  );
