/**
 * npm run bench:ingest-floor — what bounds any durable design of the bridged hook path on this
 * machine: the load of bench:ingest (50 sessions of Claude Code hook calls, BENCH_CALLS each)
 * against the bare server (answer `{}`) and against the same server writing each call to
 * PostgreSQL first (bench/durable-floor-server.mjs: one INSERT a call, then group-committed), each
 * after a warm-up, with the calls/s, the ratio to bare and the CPU a call of the server and this
 * client. The database: a fresh one on DATABASE_URL's server (default the local test server).
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { freshPostgres } from "./bench-support";
import { CALLS, PG_SERVER_URL, ROOT } from "./ingest-config";
import { bareTarget, runSessions } from "./ingest-load";
import { planLevel } from "./ingest-sessions";
import { startBare } from "./ingest-servers";
import { cpuMeter } from "./process-cpu";

const SESSIONS = 50;

async function startFloor(mode: "each" | "group", databaseUrl: string) {
  const child = spawn(process.execPath, [path.join(ROOT, "bench/durable-floor-server.mjs")], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, FLOOR_MODE: mode, FLOOR_DATABASE_URL: databaseUrl } });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (line) => resolve(String(line).trim()));
    child.once("exit", (code) => reject(new Error(`durable-floor-server.mjs exited with ${code}`)));
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

async function measure(name: string, url: string, pid: number) {
  await runSessions(bareTarget(url), planLevel(`warm-${name}`, SESSIONS, CALLS));
  const meter = cpuMeter({ server: () => [pid], client: () => [process.pid] });
  await meter.start();
  const started = performance.now();
  const measured = await runSessions(bareTarget(url), planLevel(name, SESSIONS, CALLS));
  const seconds = (performance.now() - started) / 1000;
  const cpu = await meter.stop();
  const rate = measured.calls / seconds;
  const perCall = (ms: number | undefined) => (ms === undefined ? "n/a" : (ms / measured.calls).toFixed(3));
  return { name, rate, errors: measured.errors.length, server: perCall(cpu.server), client: perCall(cpu.client) };
}

const database = await freshPostgres(PG_SERVER_URL, "floor");
const bare = await startBare();
console.log(`${SESSIONS} sessions × ${CALLS} tool calls; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
let errors = 0;
for (const mode of ["each", "group"] as const) {
  const floor = await startFloor(mode, database.url);
  const b = await measure(`bare-${mode}`, bare.url, bare.pid);
  const f = await measure(`floor-${mode}`, floor.url, floor.pid);
  floor.stop();
  errors += b.errors + f.errors;
  console.log(`durable (${mode === "each" ? "one INSERT a call" : "group commit"}): ${f.rate.toFixed(0)} calls/s, ${((f.rate / b.rate) * 100).toFixed(1)}% of bare's ${b.rate.toFixed(0)}; CPU ms a call: server ${f.server} (bare ${b.server}), client ${f.client}; errors ${f.errors + b.errors}`);
}
process.kill(bare.pid, "SIGTERM");
await database.drop();
process.exit(errors > 0 ? 1 : 0);
