import { handleSsoCallback } from "@/lib/features/sso/sso-routes";

export const dynamic = "force-dynamic";

/** GET /auth/oidc/callback: the identity provider's answer; register `<HOOKPLANE_PUBLIC_URL>/auth/oidc/callback` with it. */
export const GET = handleSsoCallback;
