import { apiRoute } from "@/lib/platform/api/route";
import { deciderOf, decideApproval } from "@/lib/features/approvals/approval-decisions";
import { decisionSchema } from "@/lib/features/approvals/schema";

// Viewers get through the door: an approval's approvers may name them. Whether this caller may
// decide this approval (its approvers, or else the operator role) is decideApproval's check.
export const POST = apiRoute({ role: "viewer", body: decisionSchema }, async ({ db, params, body, principal }) =>
  decideApproval(db, await deciderOf(db, principal, principal.kind === "token" ? "api" : "dashboard"), params.id, body),
);
