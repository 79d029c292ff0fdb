"use server";

import { revalidatePath } from "next/cache";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { requireActionRole } from "@/lib/platform/auth/current-principal";
import { deleteSecretAudited, getSecretBox, putSecretAudited, secretNameSchema, secretValueSchema, splitHosts } from "@/lib/features/secrets/secret-store";

const secretFormSchema = secretValueSchema.extend({ name: secretNameSchema });

/**
 * The value goes in and is never sent back, not even in an error. Hosts are one text, split at
 * commas and spaces; left empty, a stored secret keeps its hosts.
 */
export async function setSecretAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const hostsText = typeof form.get("hosts") === "string" ? String(form.get("hosts")) : "";
    const hosts = hostsText.trim() ? splitHosts(hostsText) : undefined;
    const parsed = secretFormSchema.safeParse({ name: form.get("name"), value: form.get("value"), hosts });
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const saved = await putSecretAudited(db, getSecretBox(), principal, parsed.data);
    revalidatePath("/settings");
    return { ok: true, message: saved.created ? `Secret ${saved.name} saved` : `Secret ${saved.name} replaced` };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function deleteSecretAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const name = secretNameSchema.safeParse(form.get("name"));
    if (!name.success) return { message: "Unknown secret" };
    const { db } = await getDatabase();
    await deleteSecretAudited(db, principal, { name: name.data });
    revalidatePath("/settings");
    return { ok: true, message: `Secret ${name.data} deleted` };
  } catch (error) {
    return errorToActionState(error);
  }
}
