/**
 * An ID token's signature, checked with jose against the keys its issuer publishes (`jwks_uri`).
 *
 * openid-client checks the token's claims (`iss`, `aud`, `exp`, `nonce`) and that its `alg` is one
 * the provider declares, but not its signature: that it leaves to the TLS connection to the token
 * endpoint unless non-repudiation checks are on. Hookplane does not rely on the connection alone
 * (a provider on plain http inside the company network, a proxy in between, a token endpoint
 * answering for another issuer): a token signed by any key but the issuer's would sign anyone in.
 * Why not openid-client's `enableNonRepudiationChecks`: it fetches the keys again for an unknown
 * `kid` only once its copy is a minute old, so the first sign-ins after the provider rotated its
 * keys would fail, and the code is spent by the time the check runs.
 *
 * - Algorithms: the one the client registered (`id_token_signed_response_alg`), else those the
 *   provider declares (`id_token_signing_alg_values_supported`), else RS256 (OpenID Connect's
 *   default); never `none` and never HS*: an HMAC's secret is not the issuer's key, and an HMAC
 *   "keyed" with the published public key is the classic forgery.
 * - Keys: jose's remote key set, fetched through the same outbound guard as the rest of the
 *   provider's endpoints. A `kid` the set does not hold fetches it again once (the provider
 *   rotated), then the token is refused.
 */
import { compactVerify, createRemoteJWKSet, customFetch, errors, type FetchImplementation } from "jose";
import * as client from "openid-client";

/** The token did not verify under the issuer's published keys: refused, whatever its claims say. */
export class IdTokenUnverified extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "IdTokenUnverified";
  }
}

/** Only asymmetric signatures prove the issuer signed: `none` proves nothing, HS* only a shared secret. */
const ISSUER_SIGNATURE = /^(RS|PS|ES)(256|384|512)$|^(EdDSA|Ed25519)$/;

/** The algorithms an ID token of this client may be signed with. */
export function idTokenAlgorithms(config: client.Configuration): string[] {
  const registered = config.clientMetadata().id_token_signed_response_alg;
  const declared = config.serverMetadata().id_token_signing_alg_values_supported;
  const allowed = typeof registered === "string" ? [registered] : (declared ?? ["RS256"]);
  return allowed.filter((alg) => ISSUER_SIGNATURE.test(alg));
}

/** One key set per client configuration (itself rebuilt from discovery every minute). */
const keySets = new WeakMap<client.Configuration, ReturnType<typeof createRemoteJWKSet>>();

function issuerKeys(config: client.Configuration, jwksUri: string): ReturnType<typeof createRemoteJWKSet> {
  const known = keySets.get(config);
  if (known) return known;
  const fetcher = config[client.customFetch];
  const keys = createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: (config.timeout ?? 10) * 1000,
    // No wait between fetches for an unknown kid: each sign-in with one costs one fetch, no more.
    cooldownDuration: 0,
    ...(fetcher && {
      [customFetch]: ((url, init) =>
        fetcher(url, { method: "GET", headers: Object.fromEntries(new Headers(init.headers)), body: undefined, redirect: "manual", signal: init.signal ?? undefined })) satisfies FetchImplementation,
    }),
  });
  keySets.set(config, keys);
  return keys;
}

/**
 * Throws IdTokenUnverified unless `idToken` carries a valid signature by a key of the issuer's
 * JWKS with an allowed algorithm; a key set that cannot be fetched throws what the fetch threw
 * (the provider is unreachable, as for any of its endpoints).
 */
export async function verifyIdTokenSignature(config: client.Configuration, idToken: string): Promise<void> {
  const { issuer, jwks_uri: jwksUri } = config.serverMetadata();
  if (!jwksUri) throw new IdTokenUnverified(`${issuer} publishes no keys (jwks_uri), so its ID tokens cannot be verified`);
  const algorithms = idTokenAlgorithms(config);
  if (algorithms.length === 0) throw new IdTokenUnverified(`${issuer} declares no public-key algorithm for ID tokens`);
  try {
    await compactVerify(idToken, issuerKeys(config, jwksUri), { algorithms });
  } catch (error) {
    // Not reaching the key set (no connection, refused by the guard, a timeout) is the provider being unreachable.
    if (!(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout) throw error;
    const why =
      error instanceof errors.JWKSNoMatchingKey
        ? "no key of the issuer's JWKS matches its kid"
        : error instanceof errors.JWSSignatureVerificationFailed
          ? "its signature does not verify under the issuer's key"
          : error instanceof errors.JOSEAlgNotAllowed
            ? `its alg is not one of ${algorithms.join(", ")}`
            : (error as Error).message;
    throw new IdTokenUnverified(`the ID token from ${issuer} was refused: ${why}`, { cause: error });
  }
}
