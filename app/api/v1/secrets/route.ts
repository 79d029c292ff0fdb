import { apiRoute } from "@/lib/platform/api/route";
import { listSecrets } from "@/lib/features/secrets/secret-store";

/** Names and dates only; values are write-only. */
export const GET = apiRoute({ role: "admin" }, async ({ db, principal }) => ({
  items: await listSecrets(db, { projectId: principal.projectId }),
  nextCursor: null,
}));
