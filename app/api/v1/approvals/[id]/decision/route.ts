import { apiRoute } from "@/lib/platform/api/route";
import { deciderOf, decideApproval, decisionSchema } from "@/lib/features/approvals/approval-decisions";

// Viewers get through the door: an approval's approvers may name them. Whether this caller may
// decide this approval (its approvers, or else the operator role) is decideApproval's check.
export const POST = apiRoute({ role: "viewer", body: decisionSchema }, async ({ db, params, body, principal }) =>
  decideApproval(db, await deciderOf(db, principal, principal.kind === "token" ? "api" : "dashboard"), params.id, body),
);
