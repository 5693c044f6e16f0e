import { ERROR_CODES, ErrorCode } from './error-codes';
import { problemBody } from './problem.filter';

/**
 * The error catalogue behind every problem's `type` URI (`{PUBLIC_BASE_URL}/errors/<code>`, RFC 9457 section
 * 3.1.1): rendered from the error-code table alone, so a code cannot be served without its page or drift from
 * what the API answers.
 */

export interface CatalogueEntry {
  code: ErrorCode;
  status: number;
  title: string;
  /** The URI problems of this code carry as `type` (this entry's own address). */
  type: string;
  when: string;
  action: string;
  /** A problem body of this code as the API sends it. */
  example: Record<string, unknown>;
}

export function catalogueEntry(baseUrl: string, code: ErrorCode): CatalogueEntry {
  const row = ERROR_CODES[code];
  return {
    code,
    status: row.status,
    title: row.title,
    type: `${baseUrl}/errors/${code}`,
    when: row.when,
    action: row.action,
    example: problemBody(baseUrl, code, row.example.detail, row.example.errors),
  };
}

export function catalogue(baseUrl: string): CatalogueEntry[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => catalogueEntry(baseUrl, code));
}

/**
 * Whether a client asking with this Accept header should get HTML: only when it names text/html with a higher
 * preference than JSON. `*\/*` alone (curl, most HTTP libraries) and ties get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  let html = 0;
  let json = 0;
  for (const part of (accept ?? '').split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (range === 'text/html') html = Math.max(html, q);
    if (['application/json', 'application/*', '*/*'].includes(range)) json = Math.max(json, q);
  }
  return html > json;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The table's prose marks names with backticks: rendered as code. */
const prose = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid #ddd}
code,pre{font-family:ui-monospace,monospace;background:#f4f4f4;border-radius:3px}code{padding:0 .2rem}pre{padding:.8rem;overflow:auto}</style>
</head><body>
${body}
</body></html>
`;
}

export function catalogueHtml(baseUrl: string): string {
  const rows = catalogue(baseUrl)
    .map(
      (e) =>
        `<tr id="${e.code}"><td><a href="${escapeHtml(e.type)}"><code>${e.code}</code></a></td><td>${e.status}</td>` +
        `<td>${prose(e.when)}</td><td>${prose(e.action)}</td></tr>`,
    )
    .join('\n');
  return page(
    'Error codes',
    `<h1>Error codes</h1>
<p>Every failure of the API is an <code>application/problem+json</code> body (RFC 9457) with a stable <code>code</code>;
its <code>type</code> is the address of the code's page below. Send <code>Accept: application/json</code> for this list as JSON.</p>
<table><thead><tr><th>Code</th><th>Status</th><th>When it happens</th><th>What to do</th></tr></thead>
<tbody>
${rows}
</tbody></table>`,
  );
}

export function entryHtml(baseUrl: string, code: ErrorCode): string {
  const e = catalogueEntry(baseUrl, code);
  return page(
    `${e.code}: ${e.title}`,
    `<p><a href="${escapeHtml(baseUrl)}/errors/">All error codes</a></p>
<h1><code>${e.code}</code>: ${escapeHtml(e.title)}</h1>
<p>HTTP status <strong>${e.status}</strong></p>
<h2>When it happens</h2>
<p>${prose(e.when)}</p>
<h2>What to do</h2>
<p>${prose(e.action)}</p>
<h2>Example</h2>
<pre>${escapeHtml(JSON.stringify(e.example, null, 2))}</pre>`,
  );
}
