import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may reach. Outbound requests must not reach the service's own networks: loopback,
 * private (RFC 1918, unique local), link-local (where cloud metadata services live), carrier-grade NAT,
 * unspecified, multicast and reserved ranges are refused unless the operator lists the host name or a range
 * in WEBHOOK_ALLOWED_HOSTS. The check runs on the address the connection is about to use (at connect time), so a
 * name that resolves to a public address at registration and to a private one later (DNS rebinding) is refused.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv6');
}

export interface AllowList {
  hosts: Set<string>;
  ranges: BlockList;
  /** As configured, for messages. */
  text: string;
}

/** `WEBHOOK_ALLOWED_HOSTS`: comma-separated host names, addresses and CIDR ranges (`localhost,10.1.0.0/16,::1`). */
export function parseAllowList(raw: string): AllowList {
  const list: AllowList = { hosts: new Set(), ranges: new BlockList(), text: raw.trim() };
  for (const entry of raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    const [addr, bits, extra] = entry.split('/');
    const kind = isIP(addr);
    if (kind === 0) {
      if (bits !== undefined || !/^[a-z0-9.-]+$/.test(entry)) throw new Error(`"${entry}" is no host name or CIDR`);
      list.hosts.add(entry);
      continue;
    }
    const max = kind === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max || !/^\d*$/.test(bits ?? '')) {
      throw new Error(`"${entry}" is no valid CIDR`);
    }
    list.ranges.addSubnet(addr, prefix, kind === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries. */
function unmapped(ip: string): { ip: string; family: 'ipv4' | 'ipv6' } {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m) return { ip: m[1], family: 'ipv4' };
  return { ip, family: isIP(ip) === 4 ? 'ipv4' : 'ipv6' };
}

/** Why `ip` (reached for `host`) may not be contacted, or null when it may. */
export function refusal(host: string, ip: string, allow: AllowList): string | null {
  const a = unmapped(ip);
  if (!BLOCKED.check(a.ip, a.family)) return null;
  if (allow.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ''))) return null;
  if (allow.ranges.check(a.ip, a.family) || allow.ranges.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6')) return null;
  return (
    `refused to connect to ${ip} (for host ${host}): loopback, private, link-local and reserved addresses are not ` +
    `reachable unless listed in WEBHOOK_ALLOWED_HOSTS`
  );
}
