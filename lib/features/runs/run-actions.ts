"use server";

import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { requireActionRole } from "@/lib/platform/auth/current-principal";
import { cancelRun, decideApproval, decisionSchema, startRun, startRunSchema } from "@/lib/features/runs/run-service";

export async function startRunAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  let id: string;
  try {
    const principal = await requireActionRole("operator");
    const parsed = startRunSchema.safeParse({ agent: form.get("agent"), prompt: form.get("prompt") });
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    id = (await startRun(db, principal, { ...parsed.data, source: "dashboard" })).id;
  } catch (error) {
    return errorToActionState(error);
  }
  redirect(`/runs/${id}`);
}

export async function cancelRunAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const { db } = await getDatabase();
    await cancelRun(db, principal, String(form.get("id") ?? ""));
    return { ok: true, message: "Cancel requested" };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function decideApprovalAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const parsed = decisionSchema.safeParse({ decision: form.get("decision"), reason: form.get("reason") || undefined });
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const settled = await decideApproval(db, principal, String(form.get("id") ?? ""), { ...parsed.data, via: "dashboard" });
    return { ok: true, message: `${settled.status === "approved" ? "Approved" : "Denied"} ${settled.toolName ?? "the action"}` };
  } catch (error) {
    return errorToActionState(error);
  }
}
