"use server";

/** The approval card's form: a person's decision from the dashboard (approval-decisions.ts decides). */
import { formAction } from "@/lib/platform/api/action";
import { deciderOf, decideApproval } from "./approval-decisions";
import { decisionFormSchema } from "./schema";

/**
 * The card's edited input: JSON text, read as the object it is (the schema then checks it at
 * `input`); text that is not JSON stays text, which the schema refuses there too, with its reason.
 */
function editedInputField(text: unknown): { input?: unknown } {
  if (typeof text !== "string" || text.trim() === "") return {};
  try {
    return { input: JSON.parse(text) };
  } catch (error) {
    return { input: `not JSON: ${(error as Error).message}` };
  }
}

export const decideApprovalAction = formAction(
  {
    // An approval's approvers may name a viewer; decideApproval checks who may decide this one.
    role: "viewer",
    input: decisionFormSchema,
    // An empty reason field is no reason.
    read: (raw) => {
      const fields = raw instanceof FormData ? Object.fromEntries(raw.entries()) : raw;
      const always = fields.decision === "approve_always";
      return { id: fields.id, decision: always ? "approve" : fields.decision, reason: fields.reason || undefined, ...(always && { alwaysAllow: true }), ...editedInputField(fields.input) };
    },
  },
  async ({ db, principal, input }) => {
    const { id, ...decision } = input;
    const settled = await decideApproval(db, await deciderOf(db, principal, "dashboard"), id, decision);
    const rule = settled.allowRule ? `; allow rule ${settled.allowRule.key} written in shadow mode (switch it to enforce in Hooks)` : "";
    return { ok: true, message: `${settled.status === "approved" ? "Approved" : "Denied"} ${settled.toolName ?? "the action"}${rule}` };
  },
);
