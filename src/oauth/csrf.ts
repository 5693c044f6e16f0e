import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const CSRF_COOKIE = 'wt_oauth_csrf';

/**
 * CSRF protection of the sign-in and consent forms: a signed double-submit token (OWASP's pattern). A random value
 * lives in an HttpOnly, SameSite=Strict cookie; each form carries HMAC(key, value | interaction uid). A page of
 * another site can neither read the cookie nor compute the HMAC, and a token is good for one interaction only.
 */
export class Csrf {
  constructor(
    private readonly key: string,
    private readonly secure: boolean,
  ) {}

  /** The form token for `uid`, setting the cookie when the browser has none yet. */
  issue(req: FastifyRequest, reply: FastifyReply, uid: string): string {
    let value = this.cookie(req);
    if (!value) {
      value = randomBytes(32).toString('base64url');
      reply.header(
        'Set-Cookie',
        stringifySetCookie({
          name: CSRF_COOKIE,
          value,
          httpOnly: true,
          sameSite: 'strict',
          secure: this.secure,
          path: '/auth/o/',
        }),
      );
    }
    return this.sign(value, uid);
  }

  /** Whether a posted form's token belongs to this browser and interaction. */
  verify(req: FastifyRequest, uid: string, token: unknown): boolean {
    const value = this.cookie(req);
    if (!value || typeof token !== 'string') return false;
    const expected = Buffer.from(this.sign(value, uid));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private cookie(req: FastifyRequest): string | undefined {
    const header = req.headers.cookie;
    return header ? parseCookie(header)[CSRF_COOKIE] : undefined;
  }

  private sign(value: string, uid: string): string {
    return createHmac('sha256', this.key).update(`${value}|${uid}`).digest('base64url');
  }
}
