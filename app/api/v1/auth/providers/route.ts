import { apiRoute } from "@/lib/platform/api/route";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { providerCreateSchema } from "@/lib/features/sso/provider-schema";
import { createProviderAudited, listProviders } from "@/lib/features/sso/provider-service";

/** Single sign-on providers (instance admins): never with their client secrets. */
export const GET = apiRoute({ role: "instance" }, async ({ db }) => listProviders(db));

export const POST = apiRoute({ role: "instance", body: providerCreateSchema }, async ({ db, body, principal }) =>
  Response.json(await createProviderAudited(db, getSecretBox(), principal, body), { status: 201 }),
);
