import { listSelfGovernanceGrants } from "@/db/queries/self-governance";
import { apiRoute } from "@/lib/platform/api/route";

/** Who in the request's project may change the rules over their own coding agents (its admins). */
export const GET = apiRoute({ role: "admin" }, async ({ db, principal }) => ({ items: await listSelfGovernanceGrants(db, { projectId: principal.projectId }), nextCursor: null }));
