/**
 * The hook kill switch as the runtime reads it: synchronously, on every dispatch. Each process
 * keeps the stored value fresh by polling it, so a flip takes effect everywhere within seconds,
 * without a restart.
 */
import type { Db } from "@/db/client";
import { getKillSwitch } from "@/db/queries/settings";

const REFRESH_MS = 1_000;
let current = false;
let timer: NodeJS.Timeout | undefined;

export function killSwitchOn(): boolean {
  return current;
}

export async function watchKillSwitch(db: Db): Promise<() => void> {
  const refresh = async () => {
    try {
      current = await getKillSwitch(db);
    } catch {
      // keep the last known value while the database is unreachable
    }
  };
  await refresh();
  clearInterval(timer);
  timer = setInterval(refresh, REFRESH_MS);
  timer.unref();
  return () => clearInterval(timer);
}
