/**
 * What every phase of npm run bench:chain (bench/hash-chain.ts) stands on: the databases it runs on
 * (embedded PGlite, or a fresh database on DATABASE_URL's PostgreSQL), its measure of a phase in
 * wall-clock and CPU µs per row, and the ledger rows it writes.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { openDatabase, type DbHandle } from "@/db/client";
import { insertHookInvocations, type NewHookInvocation } from "@/db/queries/hook-invocations";
import { migrateDatabase } from "@/db/migrate";
import { createTestDatabase } from "@/test/database";

export interface Target {
  name: string;
  /** A fresh migrated database, with `pools` handles on it (1 for PGlite). */
  open(pools: number): Promise<{ handles: DbHandle[]; drop(): Promise<void> }>;
}

/** DATABASE_URL is read once, in main: openDatabase prefers it over a PGlite folder. */
export const pglite: Target = {
  name: "PGlite",
  async open() {
    if (process.env.DATABASE_URL) throw new Error("DATABASE_URL must be unset while the PGlite target opens");
    const handle = await openDatabase({ dataDir: "memory://" });
    await migrateDatabase(handle);
    return { handles: [handle], drop: () => handle.close() };
  },
};

export const postgres = (url: string): Target => ({
  name: "PostgreSQL",
  async open(pools) {
    process.env.DATABASE_URL = url;
    const t = await createTestDatabase().finally(() => delete process.env.DATABASE_URL);
    const others = await Promise.all(Array.from({ length: pools - 1 }, () => openDatabase({ databaseUrl: t.databaseUrl })));
    return {
      handles: [t, ...others],
      async drop() {
        await Promise.all(others.map((o) => o.close()));
        await t.drop();
      },
    };
  },
});

const TICK_MS = 1000 / 100; // USER_HZ, the unit of /proc/<pid>/stat

/** CPU ms used so far by this process and by the server backends of `handle`'s database. */
async function cpuMs(handle: DbHandle): Promise<number> {
  const self = process.cpuUsage();
  let total = (self.user + self.system) / 1000;
  if (handle.kind === "postgres") {
    const { rows } = await handle.execute("select pid from pg_stat_activity where datname = current_database()");
    for (const { pid } of rows) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
        total += (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
      } catch {
        // a backend that ended, or a server elsewhere: its CPU is not counted
      }
    }
  }
  return total;
}

/** Wall and CPU µs per row of `work`; connections are opened first so none is born (or lost) inside. */
export async function measure(handles: DbHandle[], rows: () => number, work: () => Promise<unknown>) {
  await Promise.all(handles.flatMap((h) => Array.from({ length: 10 }, () => h.execute("select 1"))));
  const cpu0 = await cpuMs(handles[0]);
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  const cpu = (await cpuMs(handles[0])) - cpu0;
  const n = rows();
  return { wall: (wall * 1000) / n, cpu: (cpu * 1000) / n };
}

let serial = 0;
/** One dispatch's ledger rows: two hooks considered for a tool.pre, as the runtime records them. */
export function dispatchRows(): NewHookInvocation[] {
  const n = serial++;
  return [
    { runId: null, eventSeq: n, event: "tool.pre", hookKey: "no-prod", hookVersion: 2, scope: "global", matched: true, verdict: "allow", mode: "enforce", action: "block", durationMs: 0.041 },
    { runId: null, eventSeq: n, event: "tool.pre", hookKey: "audit-webhook", hookVersion: 5, scope: "agent:bench", matched: true, verdict: "allow", reason: `call ${n} looked fine`, mode: "enforce", action: "webhook", output: '{"ok":true}', durationMs: 12.5 },
  ];
}

/** Inserts `rows` ledger rows, 2 per call, from `writers` concurrent loops spread over the handles. */
export async function writeLedger(handles: DbHandle[], rows: number, writers: number) {
  let remaining = Math.ceil(rows / 2);
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const { db } = handles[w % handles.length];
      while (remaining-- > 0) await insertHookInvocations(db, { rows: dispatchRows() });
    }),
  );
}
