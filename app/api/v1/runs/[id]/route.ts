import { runToApi } from "@/db/queries/runs";
import { apiRoute } from "@/lib/platform/api/route";
import { findRunOr404 } from "@/lib/features/runs/run-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params }) => runToApi(await findRunOr404(db, params.id)));
