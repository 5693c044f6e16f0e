import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * docs/v1.md "SDK methods" lists every method of the published SDK with the v1 call it makes and its status. This
 * reads the calls from the SDK's own code (each `this.get|post|put|patch|httpDelete` path of a method) and the
 * operations from openapi-v1.json, so the table cannot drift: a method the server serves must say `served`, and a
 * method it does not serve must carry a reason instead.
 */
const ROOT = resolve(__dirname, '../..');
const SDK_API = join(ROOT, 'node_modules/@makeplane/plane-node-sdk/dist/api');
const VERBS: Record<string, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', httpDelete: 'DELETE' };

function jsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsFiles(path);
    return name.endsWith('.js') ? [path] : [];
  });
}

/** `Class method` -> the calls it makes, as `VERB /api/v1/...` with `{}` for each parameter. */
function sdkCalls(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of jsFiles(SDK_API).sort()) {
    const cls = file.slice(SDK_API.length + 1, -3);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/\n {4}async (\w+)\([^)]*\) \{([\s\S]*?)\n {4}\}/g)) {
      const calls = [...m[2].matchAll(/this\.(get|post|put|patch|httpDelete)\(`([^`]*)`/g)].map(
        ([, verb, path]) => `${VERBS[verb]} /api/v1${path.replace(/\$\{[^}]+\}/g, '{}')}`,
      );
      if (calls.length) out.set(`${cls} ${m[1]}`, calls);
    }
  }
  return out;
}

function servedOperations(): Set<string> {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi-v1.json'), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const ops = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of Object.keys(item)) ops.add(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`);
  return ops;
}

/** `Class method` -> the status the docs table gives it. */
function documented(): Map<string, string> {
  const text = readFileSync(join(ROOT, 'docs/v1.md'), 'utf8');
  const table = text.slice(text.indexOf('## SDK methods'));
  const rows = [...table.matchAll(/^\| `([^`]+)` \| `([^`]+)` \| `[^`]*` \| ([^|]+) \|$/gm)];
  return new Map(rows.map(([, cls, method, status]) => [`${cls} ${method}`, status.trim()]));
}

describe('docs/v1.md lists every SDK method with its true status', () => {
  it('served exactly when every call the method makes is an operation of openapi-v1.json', () => {
    const ops = servedOperations();
    const docs = documented();
    const wrong: string[] = [];
    for (const [method, calls] of sdkCalls()) {
      const served = calls.every((c) => ops.has(c));
      const status = docs.get(method);
      if (status === undefined) wrong.push(`${method}: not in the table`);
      else if (served !== (status === 'served')) wrong.push(`${method}: table says ${status}, served is ${served}`);
      else if (!served && !['A', 'W', 'N', 'R'].includes(status)) wrong.push(`${method}: no reason (${status})`);
    }
    expect(wrong).toEqual([]);
    expect(docs.size).toBe(sdkCalls().size);
  });
});
