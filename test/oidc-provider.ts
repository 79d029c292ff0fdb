/**
 * A real OpenID provider for the single sign-on tests: `oidc-provider` (the certified Node
 * implementation) on a local port, with one confidential client that must use PKCE, accounts the
 * test controls (email, email_verified, groups; changed between sign-ins) and its development
 * login page (any password). Consent is granted without a page, as a company's provider does for
 * its own applications. `signInThroughProvider` drives a browser's round trip with fetch: start
 * link, provider's login form, callback.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
  close(): Promise<void>;
}

export async function startTestIdentityProvider(options: { redirectUris: string[]; clientId?: string; clientSecret?: string; port?: number }): Promise<TestIdentityProvider> {
  const clientId = options.clientId ?? "hookplane";
  const clientSecret = options.clientSecret ?? "a client secret of the test provider";
  const accounts = new Map<string, TestAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
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
  server.on("request", provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
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
