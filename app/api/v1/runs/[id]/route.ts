import { runToApi } from "@/db/queries/runs";
import { apiRoute } from "@/lib/api/route";
import { findRunOr404 } from "@/lib/runs/run-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params }) => runToApi(await findRunOr404(db, params.id)));
