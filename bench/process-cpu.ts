/**
 * CPU time of processes by pid, read from /proc (Linux; elsewhere every figure is undefined), so a
 * benchmark can say where a call's CPU goes: the web processes, the database's backends, the client.
 * A process that exits between two readings drops out of both.
 */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux everywhere). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU of `pid` in ms, or undefined when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU of each named group of processes between `start()` and `stop()`, in ms; a group none of whose processes could be read is undefined. */
export function cpuMeter(groups: Record<string, () => Promise<number[]> | number[]>) {
  let before = new Map<string, Map<number, number>>();
  const read = async () => {
    const now = new Map<string, Map<number, number>>();
    for (const [name, pids] of Object.entries(groups)) {
      const byPid = new Map<number, number>();
      for (const pid of await pids()) {
        const ms = processCpuMs(pid);
        if (ms !== undefined) byPid.set(pid, ms);
      }
      now.set(name, byPid);
    }
    return now;
  };
  return {
    async start() {
      before = await read();
    },
    async stop(): Promise<Record<string, number | undefined>> {
      const after = await read();
      const out: Record<string, number | undefined> = {};
      for (const [name, byPid] of after) {
        let sum: number | undefined;
        for (const [pid, ms] of byPid) {
          const was = before.get(name)?.get(pid);
          if (was !== undefined) sum = (sum ?? 0) + ms - was;
        }
        out[name] = sum;
      }
      return out;
    },
  };
}
