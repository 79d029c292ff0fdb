/**
 * A real OpenID provider for the single sign-on tests: `oidc-provider` (the certified Node
 * implementation) on a local port, with one confidential client that must use PKCE, accounts the
 * test controls (email, email_verified, groups; changed between sign-ins) and its development
 * login page (any password). Consent is granted without a page, as a company's provider does for
 * its own applications. `signInThroughProvider` drives a browser's round trip with fetch: start
 * link, provider's login form, callback.
 *
 * It signs ID tokens with an RSA key of its own (published at its jwks_uri), which
 * `rotateSigningKey` replaces as a provider's key rotation does: a new key with a new `kid` signs,
 * the old one stays published. `replaceIdToken` stands in front of its token endpoint like a
 * proxy, handing the client another ID token than the one the provider issued.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

export interface TestAccount {
  email: string;
  emailVerified: boolean;
  groups: string[];
}

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** By login (= `sub`); change an entry and the next sign-in sees it. */
  accounts: Map<string, TestAccount>;
  /** The key that signs ID tokens now, and its `kid`. */
  signingKey(): SigningKey;
  /** A new signing key with a new `kid`; the previous ones stay published. */
  rotateSigningKey(): Promise<SigningKey>;
  /** Set: what the token endpoint answers instead of each ID token it issued (unset: the real one). */
  replaceIdToken?: (idToken: string) => Promise<string>;
  /** How many times the JWKS was fetched. */
  jwksFetches: number;
  close(): Promise<void>;
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** An RS256 key with a fresh `kid`, as a provider publishes one. */
export async function newSigningKey(): Promise<SigningKey & { privateJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" }, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" } };
}

export async function startTestIdentityProvider(options: { redirectUris: string[]; clientId?: string; clientSecret?: string; port?: number }): Promise<TestIdentityProvider> {
  const clientId = options.clientId ?? "hookplane";
  const clientSecret = options.clientSecret ?? "a client secret of the test provider";
  const accounts = new Map<string, TestAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys = [await newSigningKey()];
  const build = () => {
    const provider = new Provider(issuer, {
      // The first key signs. HS256 is declared as some providers do (for clients that ask for it),
      // so a token HMAC'd with the public key passes the declared-alg check and must fail Hookplane's own.
      jwks: { keys: keys.map((k) => k.privateJwk) },
      enabledJWA: { idTokenSigningAlgValues: ["RS256", "HS256"] },
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, response_types: ["code"], grant_types: ["authorization_code"] }],
      pkce: { required: () => true },
      scopes: ["openid", "email", "profile", "groups"],
      claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
      cookies: { keys: ["test provider cookie key"] },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      features: { devInteractions: { enabled: true } },
      async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
        const account = accounts.get(sub);
        if (!account) return undefined;
        return { accountId: sub, claims: async () => ({ sub, email: account.email, email_verified: account.emailVerified, groups: account.groups }) };
      },
      // Consent without a page: grant what the client asked.
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope(String(ctx.oidc.params?.scope ?? "openid"));
        await grant.save();
        return grant;
      },
    });
    provider.use(async (ctx, next) => {
      if (ctx.path === "/jwks") idp.jwksFetches++;
      await next();
      const body = ctx.body as { id_token?: unknown } | undefined;
      if (ctx.path === "/token" && idp.replaceIdToken && typeof body?.id_token === "string") ctx.body = { ...body, id_token: await idp.replaceIdToken(body.id_token) };
    });
    return provider.callback();
  };
  // Sessions, grants and codes live in oidc-provider's module-wide memory: a rebuilt provider keeps them.
  let handler = build();
  server.on("request", (req, res) => handler(req, res));
  const idp: TestIdentityProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    jwksFetches: 0,
    signingKey: () => keys[0],
    async rotateSigningKey() {
      keys.unshift(await newSigningKey());
      handler = build();
      return keys[0];
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return idp;
}

/** Cookies per origin, as a browser keeps them (enough for these flows: no paths, no expiry). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: string): string {
    return [...(this.byOrigin.get(new URL(url).origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(origin: string, name: string): string | undefined {
    return this.byOrigin.get(origin)?.get(name);
  }

  take(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const maxAge = attributes.map((a) => a.trim().toLowerCase()).find((a) => a.startsWith("max-age="));
      if (value === "" || maxAge === "max-age=0") jar.delete(name);
      else jar.set(name, value);
    }
  }
}

/** One GET or POST as a browser sends it: the jar's cookies out, Set-Cookie in, no redirect followed. */
export async function browse(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { cookie: jar.header(url) };
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers.origin = new URL(url).origin;
  }
  const response = await fetch(url, { method: init.method ?? (init.form ? "POST" : "GET"), headers, body: init.form ? new URLSearchParams(init.form) : undefined, redirect: "manual" });
  jar.take(url, response);
  return response;
}

function locationOf(response: Response, base: string): string {
  const location = response.headers.get("location");
  if (!location) throw new Error(`expected a redirect from ${base}, got ${response.status}`);
  return new URL(location, base).href;
}

/**
 * Starts at `startUrl` (the app's /auth/oidc/start link), logs in at the provider as `login`, and
 * stops before the app's callback: returns its URL, so a test can send it (or tamper with it).
 * `cancel` presses the login page's Cancel instead (access_denied).
 */
export async function throughProviderLogin(jar: CookieJar, startUrl: string, login: string, options: { cancel?: boolean } = {}): Promise<string> {
  let url = startUrl;
  const startOrigin = new URL(startUrl).origin;
  // start → provider's /auth → its login page, or straight back when the provider's session holds.
  for (let hops = 0; hops < 10; hops++) {
    const response = await browse(jar, url);
    if (response.status === 200) {
      const html = await response.text();
      if (options.cancel) {
        url = new URL(html.match(/href="([^"]+\/abort)"/)![1].replace(/&amp;/g, "&"), url).href;
        continue;
      }
      const action = new URL(html.match(/<form[^>]*action="([^"]+)"/)![1].replace(/&amp;/g, "&"), url).href;
      url = locationOf(await browse(jar, action, { form: { prompt: "login", login, password: "any password" } }), action);
      continue;
    }
    url = locationOf(response, url);
    if (new URL(url).origin === startOrigin && new URL(url).pathname.endsWith("/callback")) return url;
  }
  throw new Error("the provider never sent the browser back");
}
