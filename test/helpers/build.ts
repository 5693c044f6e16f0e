import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const DIST_CLI = join(ROOT, 'dist/src/cli.js');
export const DIST_MAIN = join(ROOT, 'dist/src/main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function stale(): boolean {
  const sources = Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'migrations')));
  return [DIST_CLI, DIST_MAIN].some((f) => !existsSync(f) || statSync(f).mtimeMs < sources);
}

/**
 * Builds dist/ (`tsc -p tsconfig.build.json`) when it is missing or older than any source file, for the
 * tests that run the compiled service or CLI as an operator would. Test files running in parallel build
 * once: a lock directory serialises them.
 */
export function ensureBuilt(): void {
  if (!stale()) return;
  const lock = join(ROOT, 'dist', '.test-build-lock');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    if (!stale()) return;
    try {
      execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
    } catch (e) {
      // Type errors are reported by `npm test`'s own tsc step; these tests only need the emitted files.
      if (!existsSync(DIST_CLI) || !existsSync(DIST_MAIN))
        throw new Error(`build failed: ${String((e as { stdout?: Buffer }).stdout ?? e)}`, { cause: e });
    }
  } finally {
    rmdirSync(lock);
  }
}
