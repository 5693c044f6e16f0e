import { ERROR_CODES, ErrorCode } from '../../src/common/errors/error-codes';
import { prefersHtml } from '../../src/common/errors/error-catalogue';
import { BASE_URL, createTestApp, expectProblem, TestApp } from '../helpers/test-app';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The problem `type` URIs resolve: GET /errors/ and /errors/{code}, from the one error-code table. */
describe('error catalogue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('GET /errors/ lists every code of the table with its status, title, type, when and what to do (JSON)', async () => {
    const res = await t.http.get('/errors/').set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.body.codes.map((e: { code: string }) => e.code)).toEqual(CODES);
    for (const e of res.body.codes) {
      const row = ERROR_CODES[e.code as ErrorCode];
      expect(e).toEqual({
        code: e.code,
        status: row.status,
        title: row.title,
        type: `${BASE_URL}/errors/${e.code}`,
        when: row.when,
        action: row.action,
        example: expect.objectContaining({ type: `${BASE_URL}/errors/${e.code}`, code: e.code, status: row.status }),
      });
    }
    // Without a trailing slash, and with curl's Accept, it is the same list.
    const bare = await t.http.get('/errors').set('Accept', '*/*');
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual(res.body);
  });

  it('GET /errors/ is an HTML page for a browser, linking every code', async () => {
    const res = await t.http.get('/errors/').set('Accept', BROWSER);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const code of CODES) expect(res.text).toContain(`href="${BASE_URL}/errors/${code}"`);
    expect(res.text).toContain('When it happens');
  });

  it('GET /errors/{code} answers JSON to clients and HTML to browsers, for every code', async () => {
    for (const code of CODES) {
      const json = await t.http.get(`/errors/${code}`);
      expect(json.status).toBe(200);
      expect(json.body).toMatchObject({ code, status: ERROR_CODES[code].status, title: ERROR_CODES[code].title });
      const html = await t.http.get(`/errors/${code}`).set('Accept', BROWSER);
      expect(html.status).toBe(200);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.text).toContain(`<code>${code}</code>`);
      expect(html.text).toContain(`<strong>${ERROR_CODES[code].status}</strong>`);
    }
  });

  it("a real problem's type URI resolves to its code's entry, without credentials", async () => {
    const problem = expectProblem(await t.http.get('/api/v2/users/me/'), 401, 'unauthorized');
    const res = await t.http.get(String(problem.type).slice(BASE_URL.length));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 'unauthorized', status: 401, type: problem.type, title: problem.title });
  });

  it('an unknown code is a 404 problem', async () => {
    const body = expectProblem(await t.http.get('/errors/no_such_code'), 404, 'resource_not_found');
    expect(body.detail).toContain('no_such_code');
  });

  it('negotiates by preference: HTML only when text/html is preferred over JSON', () => {
    expect(prefersHtml(BROWSER)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('text/html;q=0.5, application/json;q=0.9')).toBe(false);
    expect(prefersHtml('text/html, application/json')).toBe(false);
  });
});
