import { apiRoute } from "@/lib/platform/api/route";
import { getRetentionSettings, retentionSettingsSchema, setRetentionSettingsAudited } from "@/lib/features/retention/retention-settings";

export const GET = apiRoute({ role: "viewer" }, async ({ db }) => getRetentionSettings(db));

/** Instance admins only (the windows apply to every project): a shorter window deletes runs, ledger or audit rows at the next retention pass. */
export const PUT = apiRoute({ role: "instance", body: retentionSettingsSchema }, async ({ db, body, principal }) =>
  setRetentionSettingsAudited(db, principal, body),
);
