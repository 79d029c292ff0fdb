/**
 * The instance's retention windows (Settings, `GET/PUT /api/v1/settings/retention`), kept in the
 * settings table: days of runs for agents without their own `retentionDays`, of the hook ledger and
 * of the audit log, for every project. 0 (the default) keeps forever. Changing them is an instance
 * admin's, and audited at the instance level.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { getSetting, setSetting } from "@/db/queries/settings";
import { retentionDaysSchema } from "@/lib/core/agent/agent-spec";
import type { Principal } from "@/lib/platform/auth/roles";

export const RETENTION_SETTING_KEY = "retention";

export const retentionSettingsSchema = z
  .object({
    /** Runs (with their events, transcript and approvals) of agents without their own window. */
    runDays: retentionDaysSchema,
    /** The hook ledger: one hash chain for every agent, so one window. */
    ledgerDays: retentionDaysSchema,
    /** The audit log. */
    auditDays: retentionDaysSchema,
  })
  .strict();
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;

export const KEEP_FOREVER: RetentionSettings = { runDays: 0, ledgerDays: 0, auditDays: 0 };

export async function getRetentionSettings(db: Db): Promise<RetentionSettings> {
  const stored = retentionSettingsSchema.safeParse(await getSetting(db, { key: RETENTION_SETTING_KEY }));
  return stored.success ? stored.data : KEEP_FOREVER;
}

export async function setRetentionSettingsAudited(db: Db, principal: Principal, settings: RetentionSettings): Promise<RetentionSettings> {
  await audited(
    db,
    { projectId: null, actor: principal.label, action: "settings.retention", entityType: "setting", entityId: RETENTION_SETTING_KEY },
    async (tx) => {
      const before = await getRetentionSettings(tx);
      await setSetting(tx, { key: RETENTION_SETTING_KEY, value: settings });
      return before;
    },
    (before) => ({ before, after: settings }),
  );
  return settings;
}

/**
 * The form: an empty field keeps forever, as 0 does. Anything else is left for the schema to judge
 * (a word stays a word, so the error names it).
 */
export function retentionSettingsFromForm(form: FormData): Record<string, unknown> {
  const value = (key: string) => {
    const raw = form.get(key);
    if (typeof raw !== "string" || raw.trim() === "") return 0;
    const n = Number(raw.trim());
    return Number.isFinite(n) ? n : raw;
  };
  return { runDays: value("runDays"), ledgerDays: value("ledgerDays"), auditDays: value("auditDays") };
}
