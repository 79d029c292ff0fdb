"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { agentFromForm } from "@/lib/features/agents/agent-form-data";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { createAgentAudited, deleteAgentAudited, updateAgentAudited } from "@/lib/features/agents/agent-service";
import { requireActionRole } from "@/lib/platform/auth/current-principal";

/** Creates an agent, or replaces the one named by the hidden `id` field. */
export async function saveAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  let id: string;
  try {
    const principal = await requireActionRole("operator");
    const { value, scriptError } = agentFromForm(form);
    if (scriptError) return { message: scriptError, fieldErrors: { script: scriptError } };
    const unsafeScript = refuseUnsafeInput({ script: value.script });
    if (unsafeScript) return unsafeScript;
    const parsed = agentSpecSchema.safeParse(value);
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    const existingId = form.get("id");
    const saved =
      typeof existingId === "string" && existingId
        ? await updateAgentAudited(db, principal, existingId, parsed.data, { replace: true })
        : await createAgentAudited(db, principal, parsed.data);
    id = saved.id;
  } catch (error) {
    return errorToActionState(error);
  }
  revalidatePath("/agents");
  redirect(`/agents/${id}?saved=1`);
}

export async function deleteAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const { db } = await getDatabase();
    await deleteAgentAudited(db, principal, String(form.get("id") ?? ""));
  } catch (error) {
    return errorToActionState(error);
  }
  revalidatePath("/agents");
  redirect("/agents?deleted=1");
}
