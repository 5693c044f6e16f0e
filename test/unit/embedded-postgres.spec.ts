import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedAncestor } from '../../src/common/database/embedded';

describe('closedAncestor (why a root start of embedded PostgreSQL cannot reach its data)', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'closed-ancestor-'));
  });
  afterEach(() => {
    chmodSync(base, 0o700);
    rmSync(base, { recursive: true, force: true });
  });

  it('names the first directory others cannot enter, as mktemp -d creates it (0700)', () => {
    const inner = join(base, 'clone', '.data', 'pg');
    mkdirSync(inner, { recursive: true });
    chmodSync(base, 0o700);
    expect(closedAncestor(inner)).toBe(base);
  });

  it('finds none once the directory is opened (chmod 755), nor for paths not created yet', () => {
    chmodSync(base, 0o755);
    mkdirSync(join(base, 'clone'), { mode: 0o755 });
    expect(closedAncestor(join(base, 'clone', 'not-yet', 'pg'))).toBeUndefined();
  });
});
