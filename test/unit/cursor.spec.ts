// Keyset cursors (src/common/pagination/cursor.ts): opaque, bound to their ordering, refused when tampered with.
import { decodeCursor, encodeCursor } from '../../src/common/pagination/cursor';

const ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';

describe('cursors', () => {
  it('round-trips a position, a null order value included', () => {
    for (const value of ['2026-01-01T00:00:00Z', null]) {
      const raw = encodeCursor({ order: 'created_at', value, id: ID });
      expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(raw, 'created_at')).toEqual({ order: 'created_at', value, id: ID });
    }
  });

  it('refuses a cursor that is not base64url, not JSON, not a triple or without a UUID', () => {
    const enc = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url');
    for (const raw of [
      'not a cursor!',
      Buffer.from('{').toString('base64url'),
      enc(['created_at', null]),
      enc(['created_at', null, 'x']),
    ]) {
      expect(() => decodeCursor(raw, 'created_at')).toThrow(/malformed or truncated/);
    }
  });

  it('refuses a cursor made for another ordering, naming it', () => {
    const raw = encodeCursor({ order: '-created_at', value: null, id: ID });
    expect(() => decodeCursor(raw, 'created_at')).toThrow(/order_by=-created_at/);
  });
});
