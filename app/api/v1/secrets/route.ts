import { apiRoute } from "@/lib/api/route";
import { listSecrets } from "@/lib/secrets/secret-store";

/** Names and dates only; values are write-only. */
export const GET = apiRoute({ role: "admin" }, async ({ db }) => ({ items: await listSecrets(db), nextCursor: null }));
