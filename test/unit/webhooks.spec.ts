import { parseAllowList, refusal } from '../../src/webhooks/address-policy';
import { verdictOf } from '../../src/webhooks/webhook-deliverer';
import { changedAttributes, changeEvent, scopeMatches, WEBHOOK_SCOPE_VALUES } from '../../src/webhooks/webhook-events';
import { signatureHeaders } from '../../src/webhooks/webhook-http';
import { loadWebhookSettings, retryDelayMs } from '../../src/webhooks/webhook-settings';
import { verifyPlane, verifyTimestamped } from '../helpers/webhook-receiver';

describe('webhook address policy', () => {
  const none = parseAllowList('');
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
  ])('refuses %s', (ip) => {
    expect(refusal('example.com', ip, none)).toMatch(/WEBHOOK_ALLOWED_HOSTS/);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111'])('allows the public %s', (ip) => {
    expect(refusal('example.com', ip, none)).toBeNull();
  });

  it('lets listed hosts, addresses and ranges through, and nothing else', () => {
    const allow = parseAllowList(' localhost , 10.20.0.0/16,::1, 127.0.0.1');
    expect(refusal('localhost', '127.0.0.5', allow)).toBeNull(); // by name
    expect(refusal('hooks.internal', '10.20.3.4', allow)).toBeNull(); // by range
    expect(refusal('x', '::1', allow)).toBeNull();
    expect(refusal('x', '::ffff:127.0.0.1', allow)).toBeNull();
    expect(refusal('x', '10.21.0.1', allow)).not.toBeNull();
    expect(refusal('x', '192.168.0.1', allow)).not.toBeNull();
  });

  it('refuses a malformed allow-list', () => {
    expect(() => parseAllowList('10.0.0.0/33')).toThrow(/CIDR/);
    expect(() => parseAllowList('bad host!')).toThrow(/host name/);
    process.env.WEBHOOK_ALLOWED_HOSTS = '1.2.3.4/99';
    try {
      expect(() => loadWebhookSettings()).toThrow(/WEBHOOK_ALLOWED_HOSTS/);
    } finally {
      delete process.env.WEBHOOK_ALLOWED_HOSTS;
    }
  });
});

describe('webhook delivery rules', () => {
  it('2xx delivered; errors, timeouts, 408, 429 and 5xx retried; other answers and refusals final', () => {
    const v = (r: Parameters<typeof verdictOf>[0]) => verdictOf(r);
    expect(v({ status: 200, durationMs: 1 })).toBe('delivered');
    expect(v({ status: 204, durationMs: 1 })).toBe('delivered');
    for (const status of [408, 429, 500, 502, 503]) expect(v({ status, durationMs: 1 })).toBe('retry');
    expect(v({ error: 'ECONNRESET', durationMs: 1 })).toBe('retry');
    for (const status of [301, 302, 400, 401, 404, 410, 422]) expect(v({ status, durationMs: 1 })).toBe('final');
    expect(v({ error: 'refused', refused: true, durationMs: 0 })).toBe('final');
  });

  it('retry delays grow exponentially with equal jitter, capped', () => {
    const s = { retryBaseMs: 1000, retryMaxDelayMs: 5000 };
    for (let i = 0; i < 50; i++) {
      const [d1, d2, d3, d9] = [1, 2, 3, 9].map((n) => retryDelayMs(s, n));
      expect(d1).toBeGreaterThanOrEqual(500);
      expect(d1).toBeLessThanOrEqual(1000);
      expect(d2).toBeGreaterThanOrEqual(1000);
      expect(d2).toBeLessThanOrEqual(2000);
      expect(d3).toBeGreaterThanOrEqual(2000);
      expect(d9).toBeLessThanOrEqual(5000);
    }
  });

  it('scopes: *, families one level deep, single events', () => {
    expect(scopeMatches(['*'], 'workitem.comment.created')).toBe(true);
    expect(scopeMatches(['workitem.*'], 'workitem.updated')).toBe(true);
    expect(scopeMatches(['workitem.*'], 'workitem.comment.created')).toBe(false);
    expect(scopeMatches(['workitem.comment.*'], 'workitem.comment.deleted')).toBe(true);
    expect(scopeMatches(['cycle.created'], 'cycle.deleted')).toBe(false);
    expect(scopeMatches(['workitem.*'], 'workitem.link.created')).toBe(false);
    expect(scopeMatches(['workitem.relation.*'], 'workitem.dependency.created')).toBe(false);
    expect(scopeMatches(['workitem.dependency.*'], 'workitem.dependency.deleted')).toBe(true);
  });

  it("link, relation and dependency families: Plane's names and entity types", () => {
    for (const f of ['workitem.link.*', 'workitem.relation.*', 'workitem.dependency.*'])
      expect(WEBHOOK_SCOPE_VALUES).toContain(f);
    expect(WEBHOOK_SCOPE_VALUES).not.toContain('workitem.relation.updated'); // Plane has none
    const ctx = { workspace: { id: 'w' }, principal: { userId: 'u' }, project: { id: 'p' } };
    expect(changeEvent(ctx, 'workitem.link.updated', { id: 'l' }).entityType).toBe('issue_link');
    expect(changeEvent(ctx, 'workitem.relation.created', { id: 'r' }).entityType).toBe('issue_relation');
    expect(changeEvent(ctx, 'workitem.dependency.deleted', { id: 'd' }).entityType).toBe('issue_relation');
    expect(changeEvent(ctx, 'workitem.comment.created', { id: 'c' }).entityType).toBe('issue_comment');
  });

  it('previous_attributes: the old values of the fields that changed', () => {
    expect(changedAttributes({ id: 'a', name: 'x', labels: [1] }, { id: 'a', name: 'y', labels: [1] })).toEqual({
      name: 'x',
    });
  });

  it('signatures verify with the secret only, and the timestamped one only while fresh', () => {
    const body = '{"a":1}';
    const now = Math.floor(Date.now() / 1000);
    const h = signatureHeaders('s3cret', body, now);
    expect(verifyPlane('s3cret', body, h['X-Plane-Signature'])).toBe(true);
    expect(verifyPlane('other', body, h['X-Plane-Signature'])).toBe(false);
    expect(verifyTimestamped('s3cret', body, h['Webhook-Signature'])).toBe(true);
    expect(verifyTimestamped('s3cret', body + ' ', h['Webhook-Signature'])).toBe(false);
    const stale = signatureHeaders('s3cret', body, now - 600)['Webhook-Signature'];
    expect(verifyTimestamped('s3cret', body, stale)).toBe(false);
  });
});
