import { randomUUID } from 'node:crypto';
import { types } from 'pg';
import { installUuidArrayParser, parseUuidArray, UUID_ARRAY } from '../../src/common/database/uuid-arrays';

/** pg's own parser of uuid[] (postgres-array), as it was before installUuidArrayParser. */
const viaPostgresArray = types.getTypeParser(UUID_ARRAY, 'text') as (text: string) => unknown;

describe('uuid[] text to an array, without postgres-array', () => {
  const a = '0b6f0c1e-5a55-4f4e-9b59-2f6a2a1d9e01';
  const b = 'f2c1d7a0-0000-4000-8000-00000000abcd';
  const samples = [
    '{}',
    `{${a}}`,
    `{${a},${b}}`,
    `{${a.toUpperCase()},${b}}`,
    // Not the plain form: pg's parser decides.
    '{NULL}',
    `{${a},NULL,${b}}`,
    `{{${a},${b}},{${b},${a}}}`,
    `[0:1]={${a},${b}}`,
    `{"${a}"}`,
    '{,}',
  ];

  it.each(samples)('%s gives what pg gives', (text) => {
    expect(parseUuidArray(text)).toEqual(viaPostgresArray(text));
  });

  it('agrees with pg on many random arrays', () => {
    for (let i = 0; i < 500; i++) {
      const ids = Array.from({ length: i % 6 }, () => randomUUID());
      const text = `{${ids.join(',')}}`;
      expect(parseUuidArray(text)).toEqual(ids);
      expect(viaPostgresArray(text)).toEqual(ids);
    }
  });

  it('is the parser of uuid[] once installed (every connection of the process)', () => {
    installUuidArrayParser();
    expect(types.getTypeParser(UUID_ARRAY, 'text')).toBe(parseUuidArray);
  });
});
