// The one text form of a client address (audit entries and the ip_address filter).
import { normalizeIp } from '../../src/audit/audit.service';

describe('normalizeIp', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::ffff:a00:1', '10.0.0.1'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['FE80::1%eth0', 'fe80::1%eth0'],
    ['not-an-address', 'not-an-address'],
  ])('%s is %s', (raw, expected) => {
    expect(normalizeIp(raw)).toBe(expected);
  });

  it('is null for nothing and cuts a long non-address to the column', () => {
    expect([normalizeIp(null), normalizeIp(undefined), normalizeIp('  ')]).toEqual([null, null, null]);
    expect(normalizeIp('x'.repeat(100))).toHaveLength(64);
  });
});
