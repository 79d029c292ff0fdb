"use server";

import { revalidatePath } from "next/cache";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { requireActionRole } from "@/lib/platform/auth/current-principal";
import { createScheduleAudited, deleteScheduleAudited, scheduleRequestSchema } from "@/lib/features/schedules/schedule-service";

/** The form says which timing it uses; only that field is sent on, so the other may stay filled. */
function scheduleFromForm(form: FormData) {
  const text = (key: string) => {
    const value = form.get(key);
    return typeof value === "string" && value.trim() ? value.trim() : undefined;
  };
  const timing = form.get("timing") === "interval" ? "interval" : "cron";
  const interval = text("intervalMs");
  return {
    agent: text("agent") ?? "",
    name: text("name"),
    cron: timing === "cron" ? text("cron") : undefined,
    intervalMs: timing === "interval" && interval !== undefined ? Number(interval) : undefined,
    prompt: text("prompt") ?? "",
  };
}

export async function createScheduleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const parsed = scheduleRequestSchema.safeParse(scheduleFromForm(form));
    if (!parsed.success) return zodToActionState(parsed.error);
    const { db } = await getDatabase();
    await createScheduleAudited(db, principal, parsed.data);
    revalidatePath("/settings");
    return { ok: true, message: `Schedule for ${parsed.data.agent} created` };
  } catch (error) {
    return errorToActionState(error);
  }
}

export async function deleteScheduleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  try {
    const principal = await requireActionRole("operator");
    const { db } = await getDatabase();
    await deleteScheduleAudited(db, principal, String(form.get("id") ?? ""));
    revalidatePath("/settings");
    return { ok: true, message: "Schedule deleted" };
  } catch (error) {
    return errorToActionState(error);
  }
}
