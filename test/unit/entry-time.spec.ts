import { entryCreatedAt } from '../../src/work-item-activities/entry-time';

/** An id laid out as wt_uuid_v7 lays it out (migration CheaperActivityStamps), from epoch microseconds. */
function v7(epochMicros: bigint, random = 0x0123456789abn): string {
  const ms = epochMicros / 1000n;
  const frac = ((epochMicros % 1000n) * 4096n) / 1000n;
  const high = (ms << 16n) | 0x7000n | frac;
  const low = (1n << 63n) | random;
  const hex = high.toString(16).padStart(16, '0') + low.toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('entryCreatedAt: the creation time a history entry id carries', () => {
  it('gives back every microsecond of a millisecond exactly', () => {
    const base = BigInt(Date.UTC(2026, 10, 27, 14, 50, 1, 234)) * 1000n;
    for (let us = 0n; us < 1000n; us++) {
      expect(entryCreatedAt(v7(base + us))).toBe(`2026-11-27T14:50:01.234${String(us).padStart(3, '0')}Z`);
    }
  });

  it('reads upper-case ids and dates far apart alike', () => {
    expect(entryCreatedAt(v7(0n).toUpperCase())).toBe('1970-01-01T00:00:00.000000Z');
    expect(entryCreatedAt(v7(4102444799999999n))).toBe('2099-12-31T23:59:59.999999Z');
  });

  it('is null for ids that cannot carry it: other versions, bits the encoding never makes, not a uuid', () => {
    expect(entryCreatedAt('3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f')).toBeNull();
    expect(entryCreatedAt('018f0000-0000-7ffc-8000-000000000000')).toBeNull(); // 4092: above 999 µs
    expect(entryCreatedAt('not-a-uuid')).toBeNull();
  });
});
