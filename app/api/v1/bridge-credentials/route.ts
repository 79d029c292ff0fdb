import { apiRoute } from "@/lib/platform/api/route";
import { bridgeCredentialRequestSchema, issueBridgeCredential, listOwnBridgeCredentials } from "@/lib/platform/auth/bridge-credentials";

/** The signed-in person's bridge credentials in the request's project. */
export const GET = apiRoute({ role: "viewer" }, async ({ db, principal }) => ({ items: await listOwnBridgeCredentials(db, principal), nextCursor: null }));

/** A new bridge credential of the signed-in person (any member): `{token}` is shown once. */
export const POST = apiRoute({ role: "viewer", body: bridgeCredentialRequestSchema }, async ({ db, body, principal }) =>
  Response.json(await issueBridgeCredential(db, principal, body), { status: 201 }),
);
