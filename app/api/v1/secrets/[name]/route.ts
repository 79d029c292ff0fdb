import { z } from "zod";
import { apiRoute, parseWith } from "@/lib/platform/api/route";
import { deleteSecretAudited, putSecretAudited, secretNameSchema, secretValueSchema } from "@/lib/features/secrets/secret-store";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";

const paramsSchema = z.object({ name: secretNameSchema });

/**
 * Sets or replaces a value and the hosts it may be sent to (`hosts` omitted: a stored secret keeps
 * its hosts); the answer names the secret and its hosts and never echoes the value.
 */
export const PUT = apiRoute({ role: "admin", body: secretValueSchema }, async ({ db, body, params, principal }) => {
  const { name } = parseWith(paramsSchema, params);
  const { created, ...saved } = await putSecretAudited(db, getSecretBox(), principal, { name, value: body.value, hosts: body.hosts });
  return Response.json(saved, { status: created ? 201 : 200 });
});

export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  const { name } = parseWith(paramsSchema, params);
  await deleteSecretAudited(db, principal, { name });
  return new Response(null, { status: 204 });
});
