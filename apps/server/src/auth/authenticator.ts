import { AuthenticationCode } from '@sales-order/contract';

import { unauthenticated } from '../errors/domain-error.js';
import { type AccessContext, API_KEY_SUBJECT_PREFIX } from './access-context.js';
import type { ApiKeyAuthentication } from './api-keys.js';
import type { JwtSubjectScopes } from './jwt-subject-scopes.js';
import type { JwtVerifier } from './jwt-verifier.js';
import type { SessionService } from './sessions.js';

/** What a request carries to prove who sent it. */
export type Credentials = {
  /** The Authorization header, when present (even empty). */
  authorization?: string;
  /** The host session cookie's value, when present and not empty. */
  sessionToken?: string;
};

const CREDENTIALS_PATTERN = /^([A-Za-z]+) +(\S+)$/;

/**
 * A token's or session's subject is recorded as created_by like an API key's `api_key:<prefix>`:
 * one written like that would pass for the key in the audit columns, so it is refused.
 */
const notAnApiKeySubject = (code: AuthenticationCode) => (access: AccessContext) => {
  if (access.subject.startsWith(API_KEY_SUBJECT_PREFIX))
    throw unauthenticated(`A subject starting with ${API_KEY_SUBJECT_PREFIX} is reserved for API keys`, code);
  return access;
};

export type Authenticator = {
  /** The caller, or an `unauthenticated` DomainError. */
  authenticate(credentials: Credentials): Promise<AccessContext>;
};

/**
 * Picks the method: an Authorization header decides alone (a bad one is never rescued by the
 * cookie, so a stolen cookie cannot hide behind garbage and a broken token fails loudly);
 * without one, the host session cookie; without either, the caller is anonymous.
 */
export const createAuthenticator = (methods: {
  jwt: JwtVerifier;
  apiKeys: Pick<ApiKeyAuthentication, 'authenticate'>;
  sessions: Pick<SessionService, 'authenticate'>;
  /** Where a JWT caller's scope is noted (what its webhook endpoints receive by); none in some tests. */
  jwtScopes?: Pick<JwtSubjectScopes, 'presented'>;
}): Authenticator => ({
  async authenticate({ authorization, sessionToken }) {
    if (authorization !== undefined) {
      const match = CREDENTIALS_PATTERN.exec(authorization.trim());
      if (!match)
        throw unauthenticated('The Authorization header is malformed', AuthenticationCode.invalidAuthorization);
      // Both groups always match; authentication schemes are case-insensitive (RFC 9110, 11.1).
      const credential = match[2]!;
      switch (match[1]!.toLowerCase()) {
        case 'bearer':
          return methods.jwt
            .verify(credential)
            .then(notAnApiKeySubject(AuthenticationCode.invalidToken))
            .then(async (access) => {
              await methods.jwtScopes?.presented(access);
              return access;
            });
        case 'apikey':
          return methods.apiKeys.authenticate(credential);
        default:
          throw unauthenticated(
            'Use Authorization: Bearer <token> or ApiKey <key>',
            AuthenticationCode.unsupportedScheme,
          );
      }
    }
    if (sessionToken !== undefined)
      return methods.sessions.authenticate(sessionToken).then(notAnApiKeySubject(AuthenticationCode.invalidSession));
    throw unauthenticated('Authentication required', AuthenticationCode.missingCredentials);
  },
});
