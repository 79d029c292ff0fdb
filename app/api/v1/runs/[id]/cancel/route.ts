import { apiRoute } from "@/lib/platform/api/route";
import { cancelRun } from "@/lib/features/runs/run-service";

export const POST = apiRoute({ role: "operator" }, async ({ db, params, principal }) =>
  Response.json(await cancelRun(db, principal, params.id), { status: 202 }),
);
