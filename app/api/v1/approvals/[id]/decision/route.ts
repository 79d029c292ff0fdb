import { apiRoute } from "@/lib/api/route";
import { decideApproval, decisionSchema } from "@/lib/runs/run-service";

export const POST = apiRoute({ role: "operator", body: decisionSchema }, async ({ db, params, body, principal }) =>
  decideApproval(db, principal, params.id, { ...body, via: principal.kind === "token" ? "api" : "dashboard" }),
);
