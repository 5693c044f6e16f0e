import { types } from 'pg';
import { ISO_TIMESTAMP_TYPES, isoFromTimestamptz, isoTimestamp } from '../../src/common/database/iso-timestamps';

/** What the API showed before the fast path: pg's own parse into a Date, then toISOString. */
const viaDate = (text: string): string => {
  const parsed = (types.getTypeParser(1184, 'text') as (t: string) => unknown)(text);
  return parsed instanceof Date ? parsed.toISOString() : String(parsed);
};

describe('timestamptz text to the API ISO string, without a Date', () => {
  const samples = [
    '2026-11-27 04:42:05.309999+00',
    '2026-11-27 04:42:05+00',
    '2026-11-27 04:42:05.3+00',
    '2026-11-27 04:42:05.03+00',
    '2026-11-27 04:42:05.000001+00',
    '2024-02-29 23:59:59.999999+00',
    '0099-01-01 00:00:00+00',
    // Not UTC, BC, infinity: the Date path decides.
    '2026-11-27 04:42:05.309+05:30',
    '2026-11-27 04:42:05-08',
    '2026-11-27 04:42:05.309999+00 BC',
    '2026-11-27 04:42:05.+00',
    '12026-11-27 04:42:05+00',
    'infinity',
  ];

  it.each(samples)('%s gives what the Date path gives', (text) => {
    expect(isoFromTimestamptz(text)).toBe(viaDate(text));
  });

  it('agrees with the Date path on many random instants with every fraction length', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Date.UTC(1970 + (i % 130), i % 12, 1 + (i % 28), i % 24, i % 60, (i * 7) % 60);
      const base = new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
      const digits = String(Math.floor(Math.random() * 1e6))
        .padStart(6, '0')
        .slice(0, 1 + (i % 6));
      const text = `${base}${i % 7 === 0 ? '' : `.${digits}`}+00`;
      expect(isoFromTimestamptz(text)).toBe(viaDate(text));
    }
  });

  it('is used for timestamptz only; other types keep pg parsers', () => {
    expect(ISO_TIMESTAMP_TYPES.getTypeParser(1184, 'text')('2026-01-02 03:04:05.6+00')).toBe(
      '2026-01-02T03:04:05.600Z',
    );
    expect(ISO_TIMESTAMP_TYPES.getTypeParser(23, 'text')('42')).toBe(42);
    expect(ISO_TIMESTAMP_TYPES.getTypeParser(1114, 'text')('2026-01-02 03:04:05')).toBeInstanceOf(Date);
  });

  it('isoTimestamp passes the ISO string through and formats Dates and other strings', () => {
    expect(isoTimestamp('2026-01-02T03:04:05.600Z')).toBe('2026-01-02T03:04:05.600Z');
    expect(isoTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 600)))).toBe('2026-01-02T03:04:05.600Z');
    expect(isoTimestamp('2026-01-02 03:04:05.6+00')).toBe('2026-01-02T03:04:05.600Z');
    expect(isoTimestamp('2026-01-02T03:04:05+01:00')).toBe('2026-01-02T02:04:05.000Z');
    // Not in the passed-through shape (24 characters, T, '.', Z), though it ends in Z: normalised.
    expect(isoTimestamp('2026-01-02T03:04:05.6Z')).toBe('2026-01-02T03:04:05.600Z');
  });
});
