import { apiRoute } from "@/lib/platform/api/route";
import { deviceCodeRequestSchema, startDeviceAuthorization } from "@/lib/platform/auth/device-flow";
import { publicUrl } from "@/lib/platform/config/public-url";

/** `hookplane login`'s first step (RFC 8628 device authorization request): a code pair, no credential. */
export const POST = apiRoute({ role: null, body: deviceCodeRequestSchema }, async ({ db, body }) =>
  Response.json(await startDeviceAuthorization(db, body, publicUrl()), { status: 201 }),
);
