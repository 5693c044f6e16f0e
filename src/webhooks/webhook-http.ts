import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { AllowList, refusal } from './address-policy';

/** The first bytes of a response body kept in the delivery log. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface PostResult {
  status?: number;
  responseHeaders?: string;
  responseBody?: string;
  error?: string;
  /** The address policy refused the connection (final: retrying cannot help). */
  refused?: boolean;
  durationMs: number;
}

/** The two signatures: Plane's `X-Plane-Signature` (HMAC of the body) and the timestamped `Webhook-Signature`. */
export function signatureHeaders(secret: string, body: string, nowSeconds: number): Record<string, string> {
  const hmac = (text: string) => createHmac('sha256', secret).update(text).digest('hex');
  return {
    'X-Plane-Signature': hmac(body),
    'Webhook-Signature': `t=${nowSeconds},v1=${hmac(`${nowSeconds}.${body}`)}`,
  };
}

/** DNS resolution that refuses, at connect time, every address the policy does not allow. */
function guardedLookup(allow: AllowList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const why = addresses.map((a) => refusal(hostname, a.address, allow)).find((r) => r !== null);
      if (why) return callback(Object.assign(new Error(why), { code: 'EWEBHOOKREFUSED' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Reads at most RESPONSE_BODY_LIMIT bytes of an answer, then reports it (status, headers, body) to `done`. */
function readAnswer(res: http.IncomingMessage, done: (r: Omit<PostResult, 'durationMs'>) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = () => {
    done({
      status: res.statusCode,
      responseHeaders: JSON.stringify(res.headers),
      responseBody: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
    });
    res.destroy();
  };
  res.on('data', (c: Buffer) => {
    if (size < RESPONSE_BODY_LIMIT) chunks.push(c);
    size += c.length;
    if (size >= RESPONSE_BODY_LIMIT) finish();
  });
  res.on('end', finish);
  res.on('error', finish);
}

/**
 * POSTs `body` once: no redirects followed (a 3xx is an answer like any other), the whole exchange bounded by
 * `timeoutMs`, at most RESPONSE_BODY_LIMIT bytes of the answer read. The destination's address is checked when
 * the connection is made (an address literal before it), so what DNS says at send time is what is judged.
 */
export function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  allow: AllowList,
  timeoutMs: number,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = refusal(host, host, allow);
    if (why) return Promise.resolve({ error: why, refused: true, durationMs: 0 });
  }
  const client = u.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
    };
    const req = client.request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body).toString() },
        lookup: guardedLookup(allow),
        agent: false,
      },
      (res) => readAnswer(res, done),
    );
    const timer = setTimeout(() => {
      done({ error: `timed out after ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      done({ error: err.message || String(err.code), refused: err.code === 'EWEBHOOKREFUSED' });
    });
    req.end(body);
  });
}
