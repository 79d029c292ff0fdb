"use server";

import { cancelRun, deleteRunAudited, rerunRun, startRun } from "@/lib/features/runs/run-service";
import { runRefSchema, startRunFormSchema } from "@/lib/features/runs/schema";
import { formAction } from "@/lib/platform/api/action";

export const startRunAction = formAction(
  { role: "operator", input: startRunFormSchema },
  async ({ db, principal, input }) => ({ redirectTo: `/runs/${(await startRun(db, principal, { ...input, source: "dashboard" })).id}` }),
);

export const cancelRunAction = formAction({ role: "operator", input: runRefSchema }, async ({ db, principal, input }) => {
  await cancelRun(db, principal, input.id);
  return { ok: true, message: "Cancel requested" };
});

/** Re-run with the same input (rerunRun): the agent's own runs, not a bridged session's. */
export const rerunRunAction = formAction({ role: "operator", input: runRefSchema, revalidate: ["/runs"] }, async ({ db, principal, input }) => ({
  redirectTo: `/runs/${(await rerunRun(db, principal, input.id)).id}`,
}));

export const deleteRunAction = formAction({ role: "admin", input: runRefSchema, revalidate: ["/runs"] }, async ({ db, principal, input }) => {
  await deleteRunAudited(db, principal, input.id);
  return { redirectTo: "/runs" };
});
