// The partial-update builder (src/common/database/partial-update.ts): only allow-listed columns reach the SQL.
import { partialUpdateSql, PartialUpdate } from '../../src/common/database/partial-update';
import { SqlParams } from '../../src/common/pagination/sql-params';

interface Write {
  name?: string;
  description?: string | null;
  logo_props?: Record<string, unknown> | null;
  ids?: string[];
}
const UPDATE: PartialUpdate<Write> = {
  table: 'things t',
  columns: { name: {}, description: { nullAs: '' }, logo_props: { json: true, nullAs: {} }, ids: { cast: 'uuid[]' } },
  where: 't.id = $1 AND t.workspace_id = $2',
  returning: 't.id',
};

describe('partialUpdateSql', () => {
  it('sets the columns sent, after the where parameters, with the stamps', () => {
    const p = new SqlParams(['id', 'ws']);
    const sql = partialUpdateSql(UPDATE, { name: 'N', description: null, logo_props: null, ids: ['a'] }, p);
    expect(sql).toBe(
      'UPDATE things t SET "name" = $3, "description" = $4, "logo_props" = $5::jsonb, "ids" = $6::uuid[], updated_at = now() WHERE t.id = $1 AND t.workspace_id = $2 RETURNING t.id',
    );
    expect(p.values).toEqual(['id', 'ws', 'N', '', '{}', ['a']]);
  });

  it('leaves undefined keys alone and runs nothing when nothing was sent, unless always', () => {
    expect(partialUpdateSql(UPDATE, { name: undefined }, new SqlParams(['id', 'ws']))).toBeNull();
    const always = { ...UPDATE, always: true, stamps: ['updated_by_id = $3'] };
    expect(partialUpdateSql(always, {}, new SqlParams(['id', 'ws', 'u']))).toBe(
      'UPDATE things t SET updated_by_id = $3 WHERE t.id = $1 AND t.workspace_id = $2 RETURNING t.id',
    );
  });

  it('throws on a key outside the allow-list instead of interpolating it', () => {
    const evil = { name: 'x', 'name" = 1; --': 'y' } as unknown as Write;
    expect(() => partialUpdateSql(UPDATE, evil, new SqlParams(['id', 'ws']))).toThrow(/not an updatable column/);
  });
});
