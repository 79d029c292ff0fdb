"use server";

import { z } from "zod";
import { createScheduleAudited, deleteScheduleAudited, scheduleRequestSchema } from "@/lib/features/schedules/schedule-service";
import { formAction } from "@/lib/platform/api/action";
import { formText } from "@/lib/platform/api/form-text";

/** The form says which timing it uses; only that field is sent on, so the other may stay filled. */
function scheduleFromForm(raw: FormData | Record<string, unknown>) {
  const form = raw instanceof FormData ? raw : new FormData();
  const text = formText(form);
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

export const createScheduleAction = formAction(
  { role: "operator", input: scheduleRequestSchema, read: scheduleFromForm, revalidate: ["/schedules"] },
  async ({ db, principal, input }) => {
    await createScheduleAudited(db, principal, input);
    return { ok: true, message: `Schedule for ${input.agent} created` };
  },
);

export const deleteScheduleAction = formAction(
  { role: "operator", input: z.object({ id: z.string() }), revalidate: ["/schedules"] },
  async ({ db, principal, input }) => {
    await deleteScheduleAudited(db, principal, input.id);
    return { ok: true, message: "Schedule deleted" };
  },
);
