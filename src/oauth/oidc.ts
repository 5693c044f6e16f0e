/**
 * oidc-provider, loaded when the authorization server first serves a request (an OAuth route, a sign-in page),
 * not at start: the library and what it brings (koa, jose, mime-db) hold about 7 MB of heap that an instance whose
 * clients use API keys or already-issued bearer tokens never needs (the AuthGuard reads oauth_tokens itself).
 * docs/read-path-profile.md, "Peak memory, third pass".
 */
type OidcProvider = typeof import('oidc-provider');

let loaded: OidcProvider | undefined;

export function oidcProvider(): OidcProvider {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('oidc-provider') as OidcProvider);
}

/** The library's error classes (InvalidGrant, SessionNotFound, ...), loading it if need be. */
export const oidcErrors = (): OidcProvider['errors'] => oidcProvider().errors;
