"use server";

import { z } from "zod";
import { cancelRun, deleteRunAudited, rerunRun, startRun, startRunSchema } from "@/lib/features/runs/run-service";
import { formAction } from "@/lib/platform/api/action";

export const startRunAction = formAction(
  { role: "operator", input: startRunSchema.pick({ agent: true, prompt: true }) },
  async ({ db, principal, input }) => ({ redirectTo: `/runs/${(await startRun(db, principal, { ...input, source: "dashboard" })).id}` }),
);

export const cancelRunAction = formAction({ role: "operator", input: z.object({ id: z.string() }) }, async ({ db, principal, input }) => {
  await cancelRun(db, principal, input.id);
  return { ok: true, message: "Cancel requested" };
});

/** Re-run with the same input (rerunRun): the agent's own runs, not a bridged session's. */
export const rerunRunAction = formAction({ role: "operator", input: z.object({ id: z.string() }), revalidate: ["/runs"] }, async ({ db, principal, input }) => ({
  redirectTo: `/runs/${(await rerunRun(db, principal, input.id)).id}`,
}));

export const deleteRunAction = formAction({ role: "admin", input: z.object({ id: z.string() }), revalidate: ["/runs"] }, async ({ db, principal, input }) => {
  await deleteRunAudited(db, principal, input.id);
  return { redirectTo: "/runs" };
});
