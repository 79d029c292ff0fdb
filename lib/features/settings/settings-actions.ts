"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { issueApiToken, revokeApiTokenAudited, tokenRequestSchema } from "@/lib/platform/auth/account-service";
import { requireActionRole } from "@/lib/platform/auth/current-principal";
import { changeUserRoleAudited, createUserAudited, newUserSchema, roleChangeSchema } from "@/lib/platform/auth/user-service";

export async function createTokenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const parsed = tokenRequestSchema.safeParse({ name: form.get("name"), role: form.get("role") });
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const { token } = await issueApiToken(db, { ...parsed.data, userId: principal.userId, actor: principal.label });
    revalidatePath("/settings");
    return { ok: true, secret: token, message: "Token created. Copy it now: it is not shown again." };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function revokeTokenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const id = z.uuid().safeParse(form.get("id"));
    if (!id.success) return { message: "Unknown token" };
    const { db } = await getDatabase();
    await revokeApiTokenAudited(db, principal, { id: id.data });
    revalidatePath("/settings");
    return { ok: true, message: "Token revoked" };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function createUserAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const parsed = newUserSchema.safeParse({ email: form.get("email"), password: form.get("password"), role: form.get("role") });
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    await createUserAudited(db, principal, parsed.data);
    revalidatePath("/settings");
    return { ok: true, message: `Added ${parsed.data.email} as ${parsed.data.role}` };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function changeUserRoleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const parsed = roleChangeSchema.safeParse({ id: form.get("id"), role: form.get("role") });
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const user = await changeUserRoleAudited(db, principal, parsed.data);
    revalidatePath("/settings");
    return { ok: true, message: `${user.email} is now ${user.role}` };
  } catch (error) {
    return errorToActionState(error);
  }
}
