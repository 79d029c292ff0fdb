"use server";

import { z } from "zod";
import { deleteSecretAudited, putSecretAudited, secretNameSchema, secretValueSchema, splitHosts } from "@/lib/features/secrets/secret-store";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { formAction } from "@/lib/platform/api/action";

/**
 * The value goes in and is never sent back, not even in an error. Hosts are one text, split at
 * commas and spaces; left empty, a stored secret keeps its hosts.
 */
export const setSecretAction = formAction(
  {
    role: "admin",
    input: secretValueSchema.extend({ name: secretNameSchema }),
    read: (raw) => {
      const form = raw instanceof FormData ? raw : new FormData();
      const hostsText = typeof form.get("hosts") === "string" ? String(form.get("hosts")) : "";
      return { name: form.get("name"), value: form.get("value"), hosts: hostsText.trim() ? splitHosts(hostsText) : undefined };
    },
    revalidate: ["/settings"],
  },
  async ({ db, principal, input }) => {
    const saved = await putSecretAudited(db, getSecretBox(), principal, input);
    return { ok: true, message: saved.created ? `Secret ${saved.name} saved` : `Secret ${saved.name} replaced` };
  },
);

export const deleteSecretAction = formAction(
  { role: "admin", input: z.object({ name: secretNameSchema }), revalidate: ["/settings"] },
  async ({ db, principal, input }) => {
    await deleteSecretAudited(db, principal, { name: input.name });
    return { ok: true, message: `Secret ${input.name} deleted` };
  },
);
