/** Query parameters whose value may be a secret: logged as `[redacted]`. */
const SECRET_QUERY_KEYS =
  /key|token|secret|pass(word|wd)?|pwd|auth|session|credential|signature|^sig$|jwt|bearer|^code$/i;

/** `url` with the values of credential-like query parameters replaced: what request logs and trace spans show. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed escape is logged as sent
      }
      return eq >= 0 && SECRET_QUERY_KEYS.test(decoded.replace(/\[\]$/, '')) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}
