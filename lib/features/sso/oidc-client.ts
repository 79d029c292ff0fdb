/**
 * Hookplane as an OpenID Connect relying party, on `openid-client`: discovery from the issuer, the
 * authorization code flow with PKCE (S256), state and nonce; the ID token's claims (`iss`, `aud`,
 * `exp`, `nonce`, its `alg` among those the provider declares) validated by the library, and its
 * signature against the issuer's published keys by id-token-signature.ts.
 *
 * Every request to the provider goes through the outbound guard (lib/core/outbound), like
 * webhooks: a provider on a private or loopback address, or on plain http, must be in
 * HOOKPLANE_ALLOW_PRIVATE_HOSTS. A failure to reach it is a ProviderUnreachable.
 */
import * as client from "openid-client";
import type { OidcProviderRow } from "@/db/queries/oidc-providers";
import { mayBePrivate, type OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import { OutboundError, sendOutbound } from "@/lib/core/outbound/outbound-request";
import { publicUrl } from "@/lib/platform/config/public-url";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import type { SecretBox } from "@/lib/platform/security/secret-box";
import { verifyIdTokenSignature } from "./id-token-signature";

/** Where every provider sends people back: register `<HOOKPLANE_PUBLIC_URL>/auth/oidc/callback` with it. */
export const CALLBACK_PATH = "/auth/oidc/callback";
/** How long one request to the provider may take. */
const REQUEST_TIMEOUT_S = 10;
/** Discovery documents and keys do not change often: one discovery a minute per provider at most. */
const DISCOVERY_CACHE_MS = 60_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

export function callbackUrl(): string {
  return `${publicUrl()}${CALLBACK_PATH}`;
}

/** The provider could not be reached (refused by the guard, no connection, a timeout) or its discovery failed. */
export class ProviderUnreachable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ProviderUnreachable";
  }
}

/** Whether an error (or one of its causes) says the provider was not reached. */
export function isUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ProviderUnreachable) return true;
    if (e.name === "TimeoutError" || e.name === "AbortError" || (e as { code?: string }).code === "OAUTH_TIMEOUT") return true;
  }
  return false;
}

/**
 * What stands against an issuer before anything is sent: plain http only to hosts of the
 * allow-list (as for webhooks). Private addresses behind an https name are refused when the
 * guard resolves them, at sign-in.
 */
export function issuerProblem(issuer: string, policy: OutboundPolicy = serverOutboundConfig().policy): string | undefined {
  const url = new URL(issuer);
  if (url.protocol === "http:" && !mayBePrivate(url.hostname, policy)) {
    return `plain http is allowed only to hosts in HOOKPLANE_ALLOW_PRIVATE_HOSTS (add ${url.hostname} there, or use https)`;
  }
  return undefined;
}

/** `fetch` for openid-client over the outbound guard: no redirect followed, a capped body. */
function guardedFetch(policy: OutboundPolicy): client.CustomFetch {
  return async (url, options) => {
    const body = options.body;
    if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof URLSearchParams)) {
      throw new TypeError("unexpected request body for the identity provider");
    }
    try {
      const response = await sendOutbound(policy, {
        url: new URL(url),
        method: options.method,
        headers: options.headers,
        body: body === undefined || body === null ? undefined : body.toString(),
        timeoutMs: REQUEST_TIMEOUT_S * 1000,
        signal: options.signal,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
      }
      const status = response.status >= 200 && response.status <= 599 ? response.status : 502;
      const empty = [204, 205, 304].includes(status);
      return new Response(empty ? null : new Uint8Array(response.body), { status, statusText: response.statusMessage, headers });
    } catch (error) {
      if (error instanceof OutboundError) throw new ProviderUnreachable(error.message, { cause: error });
      throw error;
    }
  };
}

/**
 * `client_secret_basic` unless the provider lists only `client_secret_post` (the OpenID default
 * is basic; Okta, Keycloak, Entra and Google accept it).
 */
function clientAuth(metadata: client.ServerMetadata, secret: string): client.ClientAuth {
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes("client_secret_basic") && methods.includes("client_secret_post")) return client.ClientSecretPost(secret);
  return client.ClientSecretBasic(secret);
}

const cache = new Map<string, { config: client.Configuration; at: number }>();

/** The secret box's name for a provider's client secret (bound as associated data). */
export function clientSecretName(providerId: string): string {
  return `oidc-provider:${providerId}`;
}

/**
 * The client configuration of a provider: discovered from its issuer (cached a minute, keyed by
 * the row's last change so an edit takes effect at once).
 */
export async function providerConfiguration(provider: OidcProviderRow, box: SecretBox): Promise<client.Configuration> {
  const key = `${provider.id}:${provider.updatedAt.getTime()}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < DISCOVERY_CACHE_MS) return hit.config;
  const secret = box.open(clientSecretName(provider.id), provider.clientSecretSealed);
  const policy = serverOutboundConfig().policy;
  const problem = issuerProblem(provider.issuer, policy);
  if (problem) throw new ProviderUnreachable(problem);
  const insecure = new URL(provider.issuer).protocol === "http:";
  const fetcher = guardedFetch(policy);
  let discovered: client.Configuration;
  try {
    discovered = await client.discovery(new URL(provider.issuer), provider.clientId, undefined, undefined, {
      [client.customFetch]: fetcher,
      timeout: REQUEST_TIMEOUT_S,
      execute: insecure ? [client.allowInsecureRequests] : [],
    });
  } catch (error) {
    // Reached but not an OpenID provider at this issuer (a 404, not JSON, another issuer) reads the same to people.
    throw error instanceof ProviderUnreachable ? error : new ProviderUnreachable(`discovery of ${provider.issuer} failed: ${(error as Error).message}`, { cause: error });
  }
  const metadata = discovered.serverMetadata();
  const config = new client.Configuration(metadata, provider.clientId, { client_secret: secret }, clientAuth(metadata, secret));
  config[client.customFetch] = fetcher;
  config.timeout = REQUEST_TIMEOUT_S;
  if (insecure) client.allowInsecureRequests(config);
  for (const [k, v] of cache) if (k.startsWith(`${provider.id}:`) || Date.now() - v.at >= DISCOVERY_CACHE_MS) cache.delete(k);
  cache.set(key, { config, at: Date.now() });
  return config;
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Where to send the browser, and what must come back with it. */
export async function authorizationRequest(config: client.Configuration, scopes: readonly string[]): Promise<AuthorizationRequest> {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(),
    scope: scopes.join(" "),
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { url, state, nonce, codeVerifier };
}

/**
 * Redeems the code the provider sent back (`search`: the callback's query) and returns the
 * person's claims: the ID token's once its claims and its signature are checked, completed from the userinfo endpoint when the ID
 * token lacks the email or the groups claim (many providers put groups only there).
 */
export async function redeemAuthorizationCode(
  config: client.Configuration,
  params: { search: string; state: string; nonce: string; codeVerifier: string; groupsClaim: string },
): Promise<Record<string, unknown>> {
  const current = new URL(`${callbackUrl()}${params.search}`);
  const tokens = await client.authorizationCodeGrant(config, current, {
    pkceCodeVerifier: params.codeVerifier,
    expectedState: params.state,
    expectedNonce: params.nonce,
    idTokenExpected: true,
  });
  // Nothing of the token is read before its signature is the issuer's.
  await verifyIdTokenSignature(config, tokens.id_token!);
  const claims = tokens.claims()!;
  const complete = claims.email !== undefined && claims[params.groupsClaim] !== undefined;
  if (complete || !config.serverMetadata().userinfo_endpoint) return { ...claims };
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  // The signed ID token wins where both say something.
  return { ...userinfo, ...claims };
}
