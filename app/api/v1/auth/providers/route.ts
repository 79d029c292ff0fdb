import { apiRoute } from "@/lib/platform/api/route";
import { getSecretBox } from "@/lib/features/secrets/secret-store";
import { providerCreateSchema } from "@/lib/features/sso/provider-schema";
import { createProviderAudited, listProviders } from "@/lib/features/sso/provider-service";

/** Single sign-on providers (admins): never with their client secrets. */
export const GET = apiRoute({ role: "admin" }, async ({ db }) => listProviders(db));

export const POST = apiRoute({ role: "admin", body: providerCreateSchema }, async ({ db, body, principal }) =>
  Response.json(await createProviderAudited(db, getSecretBox(), principal, body), { status: 201 }),
);
