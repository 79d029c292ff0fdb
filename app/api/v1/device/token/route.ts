import { apiRoute } from "@/lib/platform/api/route";
import { deviceTokenRequestSchema, redeemDeviceCode } from "@/lib/platform/auth/device-flow";

/** `hookplane login`'s poll (RFC 8628 device access token request): the bridge credential once approved, once. */
export const POST = apiRoute({ role: null, body: deviceTokenRequestSchema }, async ({ db, body }) => redeemDeviceCode(db, body));
