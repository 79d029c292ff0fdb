import { apiRoute } from "@/lib/platform/api/route";
import { decideApproval, decisionSchema } from "@/lib/features/runs/run-service";

export const POST = apiRoute({ role: "operator", body: decisionSchema }, async ({ db, params, body, principal }) =>
  decideApproval(db, principal, params.id, { ...body, via: principal.kind === "token" ? "api" : "dashboard" }),
);
