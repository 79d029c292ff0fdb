import { handleSsoStart } from "@/lib/features/sso/sso-routes";

export const dynamic = "force-dynamic";

/** GET /auth/oidc/start?provider=<id>&next=<path>: off to the identity provider. */
export const GET = handleSsoStart;
