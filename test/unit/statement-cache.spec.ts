import { PLANNED_PER_REQUEST, statementName } from '../../src/common/database/statement-cache';

/** Which statements run as named prepared statements (src/common/database/statement-cache.ts). */
describe('statement names', () => {
  it('names a text once and gives it the same name every time', () => {
    const text = `SELECT $1::int AS statement_cache_spec_${Date.now()}`;
    const name = statementName(text);
    expect(name).toMatch(/^wt_\d+$/);
    expect(statementName(text)).toBe(name);
    expect(statementName(`${text} + 1`)).not.toBe(name);
  });

  it('never names a text marked to be planned per request, so PostgreSQL plans it for its values each time', () => {
    const text = `${PLANNED_PER_REQUEST}SELECT $1::int AS statement_cache_spec_marked`;
    expect(statementName(text)).toBeUndefined();
    expect(statementName(text)).toBeUndefined();
    // The mark is a comment: the text is still valid SQL.
    expect(PLANNED_PER_REQUEST).toMatch(/^\/\*.*\*\/ $/);
  });
});
