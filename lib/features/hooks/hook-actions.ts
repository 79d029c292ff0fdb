"use server";

import { jsonDepthExceeds } from "@/lib/core/safe-input";
import {
  hookBodySchema,
  hookRefSchema,
  killSwitchSchema,
  moveHookSchema,
  restoreHookVersionActionSchema,
  setHookEnabledSchema,
} from "@/lib/features/hooks/schema";
import {
  createHookAudited,
  deleteHookAudited,
  moveHookAudited,
  replaceHookAudited,
  restoreHookVersionAudited,
  setHookEnabledAudited,
} from "@/lib/features/hooks/hook-service";
import { setKillSwitchAudited } from "@/lib/features/hooks/kill-switch-service";
import { action, formAction } from "@/lib/platform/api/action";
import { AppError } from "@/lib/platform/api/app-error";

/** Agent pages list their hooks too. */
const HOOK_PAGES = ["/hooks", "/hooks/[id]", "/agents/[id]"];

/** The editor sends the hook as JSON in `spec` (it validated it with the same schema already). */
function hookFromForm(raw: FormData | Record<string, unknown>): unknown {
  const specText = raw instanceof FormData ? String(raw.get("spec") ?? "") : "";
  try {
    if (jsonDepthExceeds(specText)) throw new Error("nested too deeply");
    return JSON.parse(specText);
  } catch {
    throw AppError.badRequest("The form did not send a hook; reload the page and try again.");
  }
}

/**
 * The editor's save: a new hook, or (with `hookId` and the `version` it was opened on) a new
 * version of one, refused if someone saved another version in between.
 */
export const saveHookAction = formAction(
  { role: "operator", input: hookBodySchema, read: hookFromForm, revalidate: HOOK_PAGES },
  async ({ db, principal, input, raw }) => {
    const form = raw as FormData;
    const hookId = String(form.get("hookId") ?? "");
    if (!hookId) {
      // The instance admin's checkbox; createHookAudited refuses it to anyone else.
      const instance = form.get("instance") === "1";
      return { redirectTo: `/hooks/${(await createHookAudited(db, principal, input, { instance })).id}?created=1` };
    }
    const version = Number(form.get("version"));
    const saved = await replaceHookAudited(db, principal, hookId, input, { expectedVersion: Number.isInteger(version) ? version : undefined });
    return saved.version === version ? { ok: true, message: "Nothing changed" } : { ok: true, message: `Saved as version ${saved.version}` };
  },
);

export const deleteHookAction = formAction(
  { role: "operator", input: hookRefSchema, revalidate: HOOK_PAGES },
  async ({ db, principal, input }) => {
    await deleteHookAudited(db, principal, input.id);
    return { redirectTo: "/hooks?deleted=1" };
  },
);

export const setHookEnabledAction = action(
  { role: "operator", input: setHookEnabledSchema, revalidate: HOOK_PAGES },
  async ({ db, principal, input }) => {
    const saved = await setHookEnabledAudited(db, principal, input.id, input.enabled);
    return { ok: true, message: `${saved.key} ${saved.enabled ? "enabled" : "disabled"} (version ${saved.version})` };
  },
);

export const moveHookAction = action(
  { role: "operator", input: moveHookSchema, revalidate: HOOK_PAGES },
  async ({ db, principal, input }) => {
    const result = await moveHookAudited(db, principal, input);
    return result.moved ? { ok: true, message: `Moved ${input.direction}` } : { message: `Already at the ${input.direction === "up" ? "top" : "bottom"}` };
  },
);

export const restoreHookVersionAction = action(
  { role: "operator", input: restoreHookVersionActionSchema, revalidate: HOOK_PAGES },
  async ({ db, principal, input }) => {
    const saved = await restoreHookVersionAudited(db, principal, input.id, input.version);
    return { ok: true, message: `Restored version ${input.version} as version ${saved.version}` };
  },
);

export const setKillSwitchAction = action(
  { role: "instance", input: killSwitchSchema, revalidate: HOOK_PAGES },
  async ({ db, principal, input }) => {
    const state = await setKillSwitchAudited(db, principal, input.enabled);
    return { ok: true, message: state.enabled ? "Kill switch on: no hook runs" : "Kill switch off: hooks run again" };
  },
);
