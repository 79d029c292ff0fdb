import { eq } from "drizzle-orm";
import type { Db } from "../client";
import { settings } from "../schema";

export const KILL_SWITCH_KEY = "hooks_kill_switch";

export async function getSetting<T>(db: Db, params: { key: string }): Promise<T | undefined> {
  const [row] = await db.select().from(settings).where(eq(settings.key, params.key));
  return row?.value as T | undefined;
}

export async function setSetting(db: Db, params: { key: string; value: unknown }) {
  await db
    .insert(settings)
    .values({ key: params.key, value: params.value })
    .onConflictDoUpdate({ target: settings.key, set: { value: params.value, updatedAt: new Date() } });
}

export async function getKillSwitch(db: Db): Promise<boolean> {
  return (await getSetting<boolean>(db, { key: KILL_SWITCH_KEY })) === true;
}

export interface KillSwitchState {
  enabled: boolean;
  updatedAt: Date | null;
}

/** The kill switch with when it last changed, for the API and the hooks page. */
export async function getKillSwitchState(db: Db): Promise<KillSwitchState> {
  const [row] = await db.select().from(settings).where(eq(settings.key, KILL_SWITCH_KEY));
  return { enabled: row?.value === true, updatedAt: row?.updatedAt ?? null };
}

export async function setKillSwitch(db: Db, params: { enabled: boolean }): Promise<KillSwitchState> {
  await setSetting(db, { key: KILL_SWITCH_KEY, value: params.enabled });
  return getKillSwitchState(db);
}
