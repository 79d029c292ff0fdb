"use server";

import { z } from "zod";
import { cancelRun, deciderOf, decideApproval, decisionSchema, deleteRunAudited, startRun, startRunSchema } from "@/lib/features/runs/run-service";
import { formAction } from "@/lib/platform/api/action";

export const startRunAction = formAction(
  { role: "operator", input: startRunSchema.pick({ agent: true, prompt: true }) },
  async ({ db, principal, input }) => ({ redirectTo: `/runs/${(await startRun(db, principal, { ...input, source: "dashboard" })).id}` }),
);

export const cancelRunAction = formAction({ role: "operator", input: z.object({ id: z.string() }) }, async ({ db, principal, input }) => {
  await cancelRun(db, principal, input.id);
  return { ok: true, message: "Cancel requested" };
});

export const deleteRunAction = formAction({ role: "admin", input: z.object({ id: z.string() }), revalidate: ["/runs"] }, async ({ db, principal, input }) => {
  await deleteRunAudited(db, principal, input.id);
  return { redirectTo: "/runs" };
});

export const decideApprovalAction = formAction(
  {
    // An approval's approvers may name a viewer; decideApproval checks who may decide this one.
    role: "viewer",
    input: decisionSchema.extend({ id: z.string() }),
    // An empty reason field is no reason.
    read: (raw) => {
      const fields = raw instanceof FormData ? Object.fromEntries(raw.entries()) : raw;
      const always = fields.decision === "approve_always";
      return { id: fields.id, decision: always ? "approve" : fields.decision, reason: fields.reason || undefined, ...(always && { alwaysAllow: true }) };
    },
  },
  async ({ db, principal, input }) => {
    const { id, ...decision } = input;
    const settled = await decideApproval(db, await deciderOf(db, principal, "dashboard"), id, decision);
    const rule = settled.allowRule ? `; allow rule ${settled.allowRule.key} written in shadow mode (switch it to enforce in Hooks)` : "";
    return { ok: true, message: `${settled.status === "approved" ? "Approved" : "Denied"} ${settled.toolName ?? "the action"}${rule}` };
  },
);
