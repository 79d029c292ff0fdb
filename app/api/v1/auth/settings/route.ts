import { apiRoute } from "@/lib/platform/api/route";
import { authSettingsSchema, getAuthSettings, setPasswordSignInAudited } from "@/lib/features/sso/provider-service";

/** Whether password sign-in is on (instance admins). */
export const GET = apiRoute({ role: "instance" }, async ({ db }) => getAuthSettings(db));

/** Turns password sign-in on or off; off needs a provider the caller has signed in through. */
export const PUT = apiRoute({ role: "instance", body: authSettingsSchema }, async ({ db, body, principal }) => setPasswordSignInAudited(db, principal, body));
