"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { jsonDepthExceeds } from "@/lib/platform/api/safe-input";
import { requireActionRole } from "@/lib/platform/auth/current-principal";
import { hookBodySchema, killSwitchSchema } from "@/lib/features/hooks/hook-requests";
import {
  createHookAudited,
  deleteHookAudited,
  moveHookAudited,
  replaceHookAudited,
  restoreHookVersionAudited,
  setHookEnabledAudited,
} from "@/lib/features/hooks/hook-service";
import { setKillSwitchAudited } from "@/lib/features/hooks/kill-switch-service";

function revalidateHooks(id?: string) {
  revalidatePath("/hooks");
  if (id) revalidatePath(`/hooks/${id}`);
  // Agent pages list their hooks too.
  revalidatePath("/agents/[id]", "page");
}

/**
 * The editor's save. The form sends the hook as JSON in `spec` (the editor validated it with the
 * same schema already), `hookId` and the `version` it was opened on when editing.
 */
export async function saveHookAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  let createdId: string;
  try {
    const principal = await requireActionRole("operator");
    let raw: unknown;
    const specText = String(form.get("spec") ?? "");
    try {
      if (jsonDepthExceeds(specText)) throw new Error("nested too deeply");
      raw = JSON.parse(specText);
    } catch {
      return { message: "The form did not send a hook; reload the page and try again." };
    }
    const unsafeSpec = refuseUnsafeInput(raw);
    if (unsafeSpec) return unsafeSpec;
    const parsed = hookBodySchema.safeParse(raw);
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const hookId = String(form.get("hookId") ?? "");
    if (hookId) {
      const version = Number(form.get("version"));
      const saved = await replaceHookAudited(db, principal, hookId, parsed.data, { expectedVersion: Number.isInteger(version) ? version : undefined });
      revalidateHooks(hookId);
      return saved.version === version ? { ok: true, message: "Nothing changed" } : { ok: true, message: `Saved as version ${saved.version}` };
    }
    createdId = (await createHookAudited(db, principal, parsed.data)).id;
  } catch (error) {
    return errorToActionState(error);
  }
  revalidateHooks();
  redirect(`/hooks/${createdId}?created=1`);
}

export async function deleteHookAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const { db } = await getDatabase();
    await deleteHookAudited(db, principal, String(form.get("id") ?? ""));
  } catch (error) {
    return errorToActionState(error);
  }
  revalidateHooks();
  redirect("/hooks?deleted=1");
}

const enabledInput = z.object({ id: z.string(), enabled: z.boolean() });

export async function setHookEnabledAction(input: z.input<typeof enabledInput>): Promise<ActionState> {
  const refused = refuseUnsafeInput(input);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const parsed = enabledInput.safeParse(input);
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const saved = await setHookEnabledAudited(db, principal, parsed.data.id, parsed.data.enabled);
    revalidateHooks(saved.id);
    return { ok: true, message: `${saved.key} ${saved.enabled ? "enabled" : "disabled"} (version ${saved.version})` };
  } catch (error) {
    return errorToActionState(error);
  }
}

const moveInput = z.object({ id: z.string(), direction: z.enum(["up", "down"]), visibleIds: z.array(z.string()).max(1000).optional() });

export async function moveHookAction(input: z.input<typeof moveInput>): Promise<ActionState> {
  const refused = refuseUnsafeInput(input);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const parsed = moveInput.safeParse(input);
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const result = await moveHookAudited(db, principal, parsed.data);
    revalidateHooks();
    return result.moved ? { ok: true, message: `Moved ${parsed.data.direction}` } : { message: `Already at the ${parsed.data.direction === "up" ? "top" : "bottom"}` };
  } catch (error) {
    return errorToActionState(error);
  }
}

const restoreInput = z.object({ id: z.string(), version: z.number().int().min(1) });

export async function restoreHookVersionAction(input: z.input<typeof restoreInput>): Promise<ActionState> {
  const refused = refuseUnsafeInput(input);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const parsed = restoreInput.safeParse(input);
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const saved = await restoreHookVersionAudited(db, principal, parsed.data.id, parsed.data.version);
    revalidateHooks(saved.id);
    return { ok: true, message: `Restored version ${parsed.data.version} as version ${saved.version}` };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function setKillSwitchAction(input: { enabled: boolean }): Promise<ActionState> {
  const refused = refuseUnsafeInput(input);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("admin");
    const parsed = killSwitchSchema.safeParse(input);
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const state = await setKillSwitchAudited(db, principal, parsed.data.enabled);
    revalidateHooks();
    return { ok: true, message: state.enabled ? "Kill switch on: no hook runs" : "Kill switch off: hooks run again" };
  } catch (error) {
    return errorToActionState(error);
  }
}
