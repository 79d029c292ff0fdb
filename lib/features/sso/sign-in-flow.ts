/**
 * What a browser carries from the start of a single sign-on to its callback: the provider, the
 * state, the nonce, the PKCE verifier and where to go after. Sealed with the secret box
 * (AES-256-GCM: nobody can read or change it) in a short-lived, httpOnly, SameSite=Lax cookie on
 * /auth/oidc only, so the callback accepts only the answer to a sign-in this browser started
 * (no login CSRF), within ten minutes. Nothing is kept on the server for a visitor who is not
 * signed in. The callback clears the cookie whatever happens, and the provider redeems a code
 * once, so a replayed callback gets nothing.
 */
import { z } from "zod";
import type { SecretBox } from "@/lib/platform/security/secret-box";
import { setCookieHeader } from "@/lib/platform/auth/session-cookie";

export const FLOW_COOKIE = "hp_oidc_flow";
export const FLOW_COOKIE_PATH = "/auth/oidc";
export const FLOW_TTL_MS = 10 * 60 * 1000;
/** The secret box's associated data for flows: a sealed value of another kind does not open as one. */
const FLOW_SEAL_NAME = "oidc-sign-in-flow";

const flowSchema = z.object({
  providerId: z.uuid(),
  state: z.string().min(1),
  nonce: z.string().min(1),
  codeVerifier: z.string().min(43),
  next: z.string(),
  expiresAt: z.number(),
});

export type SignInFlow = z.infer<typeof flowSchema>;

export function sealFlow(box: SecretBox, flow: SignInFlow): string {
  return box.seal(FLOW_SEAL_NAME, JSON.stringify(flow));
}

/** The flow, or undefined when the value is missing, forged, changed, sealed with another key or expired. */
export function openFlow(box: SecretBox, sealed: string | undefined, now = Date.now()): SignInFlow | undefined {
  if (!sealed) return undefined;
  try {
    const flow = flowSchema.parse(JSON.parse(box.open(FLOW_SEAL_NAME, sealed)));
    return flow.expiresAt > now ? flow : undefined;
  } catch {
    return undefined;
  }
}

export function flowSetCookie(sealed: string): string {
  return setCookieHeader(FLOW_COOKIE, sealed, { path: FLOW_COOKIE_PATH, maxAge: FLOW_TTL_MS / 1000 });
}

export function flowClearCookie(): string {
  return setCookieHeader(FLOW_COOKIE, "", { path: FLOW_COOKIE_PATH, maxAge: 0 });
}
