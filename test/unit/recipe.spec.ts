// The checks behind docs/extending.md: each step of adding a resource that a newcomer could forget fails here (or in
// the check the recipe names for it), without a database.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MIGRATIONS } from '../../migrations';
import { ONLINE_INDEX_SINCE } from '../../migrations/online-index';
import { blockingIndexChanges } from '../helpers/migration-rules';
import { ENTITY_FILES } from '../../src/common/database/data-source';

const ROOT = join(__dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** Every file under `dir` (relative to the repository), recursively. */
function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const p = join(dir, name);
    return statSync(join(ROOT, p)).isDirectory() ? files(p) : [p];
  });
}
const SRC = files('src').filter((f) => f.endsWith('.ts'));

describe('recipe step: the migration is listed in migrations/index.ts', () => {
  it('every migration file is imported and in MIGRATIONS, in timestamp order', () => {
    const index = read('migrations/index.ts');
    const onDisk = readdirSync(join(ROOT, 'migrations'))
      .filter((f) => /^\d{13}-.+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''));
    expect(onDisk.length).toBeGreaterThan(20);
    expect(onDisk.filter((m) => !index.includes(`'./${m}'`))).toEqual([]);
    const names = MIGRATIONS.map((m) => m.name);
    expect(names).toHaveLength(onDisk.length);
    const stamps = names.map((n) => Number(/(\d{13})$/.exec(n)?.[1]));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
  });
});

describe('recipe step: the entity is discovered', () => {
  it('every @Entity class lives in a *.entity.ts file under src/, the pattern TypeORM loads', () => {
    const declaring = SRC.filter((f) => /@Entity\(/.test(read(f)));
    expect(declaring.length).toBeGreaterThan(10);
    expect(declaring.filter((f) => !f.endsWith('.entity.ts'))).toEqual([]);
    expect(relative(ROOT, ENTITY_FILES)).toBe(join('src', '**', '*.entity.{ts,js}'));
  });
});

/** Every module class of src/ and the text of its file without the import lines (its declarations, forRoot included). */
function modules(): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of SRC.filter((p) => p.endsWith('.module.ts'))) {
    const body = read(f).replace(/^import [\s\S]*?from '[^']+';$/gm, '');
    for (const m of body.matchAll(/export class (\w+Module)\b/g)) out.set(m[1], body);
  }
  return out;
}

describe('recipe step: the module is imported, its controllers declared', () => {
  const all = modules();

  it('every module is reachable from AppModule through imports', () => {
    const seen = new Set<string>(['AppModule']);
    const queue = ['AppModule'];
    while (queue.length) {
      const body = all.get(queue.shift()!) ?? '';
      for (const [, name] of body.matchAll(/\b([A-Z]\w*Module)\b/g)) {
        if (all.has(name) && !seen.has(name)) {
          seen.add(name);
          queue.push(name);
        }
      }
    }
    expect(all.size).toBeGreaterThan(20);
    expect([...all.keys()].filter((m) => !seen.has(m))).toEqual([]);
  });

  it('every controller class is in the controllers of a module', () => {
    const declared = [...all.values()]
      .flatMap((body) => [...body.matchAll(/controllers:([^\]]*)\]/g)].map((m) => m[1]))
      .join('\n');
    const controllers = SRC.flatMap((f) =>
      [...read(f).matchAll(/@Controller\([^)]*\)\s*export class (\w+)/g)].map((m) => m[1]),
    );
    expect(controllers.length).toBeGreaterThan(20);
    expect(controllers.filter((c) => !new RegExp(`\\b${c}\\b`).test(declared))).toEqual([]);
  });
});

describe('recipe step: the resource is documented (README matrix row, a docs page)', () => {
  const doc = JSON.parse(read('openapi.json')) as {
    paths: Record<string, Record<string, { 'x-required-scope'?: string }>>;
  };
  /** The resource part of every scope a v2 route requires (`projects.cycles` of `projects.cycles:write`). */
  const resources = [
    ...new Set(
      Object.values(doc.paths)
        .flatMap((item) => Object.values(item).map((op) => op['x-required-scope']))
        .filter((s): s is string => !!s && /^[\w.]+:(read|write)$/.test(s))
        .map((s) => s.replace(/:(read|write)$/, '')),
    ),
  ];

  it('finds the resources of the committed document (the walk itself works)', () => {
    expect(resources).toEqual(expect.arrayContaining(['projects', 'projects.cycles', 'projects.work_items.links']));
  });

  it('every resource has a row in the README permission matrix', () => {
    const readme = read('README.md');
    const matrix = readme.slice(
      readme.indexOf('## Permission matrix'),
      readme.indexOf('\n## ', readme.indexOf('## Permission matrix') + 1),
    );
    const rows = matrix.split('\n').filter((l) => l.startsWith('| '));
    expect(resources.filter((r) => !rows.some((row) => row.includes(`\`${r}:`)))).toEqual([]);
  });

  it('every resource has a route table in a docs/ page', () => {
    const pages = files('docs')
      .filter((f) => f.endsWith('.md'))
      .map(read)
      .join('\n');
    const tableRows = pages.split('\n').filter((l) => l.startsWith('| '));
    expect(resources.filter((r) => !tableRows.some((row) => row.includes(`\`${r}:`)))).toEqual([]);
  });
});

describe('recipe step: the HTTP test', () => {
  it('every v2 controller route is requested by some test in test/e2e', () => {
    const tests = files('test/e2e')
      .filter((f) => f.endsWith('.ts'))
      .map(read)
      .join('\n');
    const untested = SRC.filter((f) => f.endsWith('.controller.ts')).flatMap((f) =>
      [...read(f).matchAll(/@Controller\('(api\/v2\/[^']*)'\)/g)]
        .map((m) => m[1])
        .filter((path) => {
          const literal = path.split('/').filter((s) => s && !s.startsWith(':'));
          const last = literal[literal.length - 1];
          return !['/', '`', "'"].some((end) => tests.includes(`/${last}${end}`));
        }),
    );
    expect(untested).toEqual([]);
  });
});

describe('recipe step: an index on a large table is built online (migrations/online-index.ts)', () => {
  /** Migrations from before the rule that changed indexes of large tables in their transaction, with the reason. */
  const EXEMPT: Record<string, string> = {
    // Drops plain indexes (short locks, no build) in the transaction that rewrites the trigger functions which
    // stopped needing them; run once on upgrade.
    '1795670000000-DropPlainIdIndexes': 'drops only, tied to its function rewrites',
  };

  it('the check itself: blocking forms are found, online ones and new tables pass', () => {
    expect(blockingIndexChanges('CREATE INDEX "ix_work_items_x" ON "work_items" ("a")')).toHaveLength(1);
    expect(blockingIndexChanges('CREATE UNIQUE INDEX uq_audit_logs_x ON audit_logs (a)')).toHaveLength(1);
    expect(blockingIndexChanges('DROP INDEX "public"."ix_work_item_labels_x"')).toHaveLength(1);
    expect(blockingIndexChanges('CREATE INDEX "ix_${t}_x" ON "${t}" ("a")')).toHaveLength(1);
    expect(blockingIndexChanges('transaction = true; CREATE INDEX CONCURRENTLY "ix" ON "work_items" (a)')).toEqual([
      'CONCURRENTLY without `transaction = false`',
    ]);
    expect(blockingIndexChanges('transaction = false; await createIndexOnline(q, "ix", `"work_items" (a)`)')).toEqual(
      [],
    );
    expect(blockingIndexChanges('CREATE TABLE "webhook_logs" (a int); CREATE INDEX "i" ON "webhook_logs" (a)')).toEqual(
      [],
    );
    expect(blockingIndexChanges('CREATE INDEX "ix_states_x" ON "states" ("a"); DROP INDEX "ix_labels_x"')).toEqual([]);
    expect(
      blockingIndexChanges(
        'ALTER TABLE "work_item_activities" DROP CONSTRAINT "PK", ADD CONSTRAINT "PK" PRIMARY KEY ("a")',
      ),
    ).toHaveLength(1);
    expect(blockingIndexChanges('ALTER TABLE work_items ADD UNIQUE (a, b)')).toHaveLength(1);
    expect(blockingIndexChanges('ALTER TABLE "states" ADD CONSTRAINT "uq" UNIQUE ("a")')).toEqual([]);
    expect(
      blockingIndexChanges('transaction = false; await replacePrimaryKeyOnline(q, "work_items", "PK", ["a"])'),
    ).toEqual([]);
    expect(blockingIndexChanges('await replacePrimaryKeyOnline(q, "work_items", "PK", ["a"])')).toEqual([
      'CONCURRENTLY without `transaction = false`',
    ]);
  });

  it(`every migration from ${ONLINE_INDEX_SINCE} on changes large tables' indexes without blocking writes`, () => {
    const checked = readdirSync(join(ROOT, 'migrations'))
      .filter((f) => /^\d{13}-.+\.ts$/.test(f) && Number(f.slice(0, 13)) >= ONLINE_INDEX_SINCE)
      .map((f) => f.replace(/\.ts$/, ''));
    expect(checked.length).toBeGreaterThan(1);
    const offending = checked
      .filter((m) => !EXEMPT[m])
      .map((m) => [m, blockingIndexChanges(read(`migrations/${m}.ts`))] as const)
      .filter(([, found]) => found.length > 0);
    expect(offending).toEqual([]);
  });
});
