/**
 * npm run bench:start — how a production process starts, on a built tree (`npm run build`):
 * start-to-first-request (`/api/health` answering 200) and idle RSS of the web process, and the
 * idle RSS of a worker, on a fresh PostgreSQL database (DATABASE_URL, default the local test
 * server) and on the embedded PGlite. Each process is started as an operator starts it:
 * `npm start` and `npm run worker` (both exec node on dist/).
 * Targets (issue 12): web < 3 s to the first request and < 250 MB idle, worker < 150 MB.
 * Idle RSS is read 3 s after the first request (what starting left committed) and, on the last
 * start, again once the process has been idle for BENCH_SETTLE_S (40) s: V8's memory reducer gives
 * back the young generation the start grew (scripts/node-flags.cjs lets it grow to 2 × 64 MiB).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@/test/free-port";
import { freshPostgres } from "./bench-support";

const SERVER_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 40);

/** RSS of the node process npm runs (npm's script execs node, so it is npm's one child). */
function rssMb(npmPid: number): number {
  const [child] = readFileSync(`/proc/${npmPid}/task/${npmPid}/children`, "utf8").trim().split(/\s+/);
  const status = readFileSync(`/proc/${child}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn("npm", args, { env: { ...process.env, LOG_LEVEL: "warn", ...env } as NodeJS.ProcessEnv, stdio: "ignore" });
}

async function stop(child: ChildProcess) {
  const done = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await done;
}

async function firstRequest(port: number, began: number): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return performance.now() - began;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
}


async function web(label: string, env: Record<string, string>) {
  const starts: number[] = [];
  const rss: number[] = [];
  let settled = 0;
  for (let i = 0; i < TRIALS; i++) {
    const port = await freePort();
    const began = performance.now();
    const child = start(["start"], { ...env, PORT: String(port) });
    starts.push(await firstRequest(port, began));
    await new Promise((r) => setTimeout(r, 3000));
    rss.push(rssMb(child.pid!));
    if (i === TRIALS - 1) {
      await new Promise((r) => setTimeout(r, (SETTLE_S - 3) * 1000));
      settled = rssMb(child.pid!);
    }
    await stop(child);
  }
  // Per start, in order: the first creates and migrates the database (PGlite's initdb runs in the
  // process and its memory stays), the others open it as a restart does.
  console.log(
    `${label}: start to first request ${starts.map((s) => `${(s / 1000).toFixed(2)} s`).join(", ")}; idle RSS ${rss.map((r) => r.toFixed(0)).join(", ")} MB 3 s after (the first start creates and migrates a fresh database), ${settled.toFixed(0)} MB after ${SETTLE_S} s idle`,
  );
}

// Start from a built tree: build first (untimed) when the sources changed since the last build.
const { buildIsCurrent } = (await import(path.resolve("scripts/build-stamp.mjs"))) as { buildIsCurrent: () => boolean };
if (!buildIsCurrent()) {
  console.log("building first (the sources changed since the last build)");
  const built = spawn("npm", ["run", "build"], { stdio: "inherit" });
  await new Promise((r) => built.once("exit", r));
}

const pg = await freshPostgres(SERVER_URL, "hp_bench_start");
try {
  await web("web on PostgreSQL", { DATABASE_URL: pg.url });
  const worker = start(["run", "worker"], { DATABASE_URL: pg.url });
  await new Promise((r) => setTimeout(r, 5000));
  const early = rssMb(worker.pid!);
  await new Promise((r) => setTimeout(r, (SETTLE_S - 5) * 1000));
  console.log(`worker on PostgreSQL: idle RSS ${early.toFixed(0)} MB 5 s after start, ${rssMb(worker.pid!).toFixed(0)} MB after ${SETTLE_S} s`);
  await stop(worker);
} finally {
  await pg.drop();
}
const dataDir = mkdtempSync(path.join(tmpdir(), "hp-bench-start-"));
try {
  await web("web on embedded PGlite", { HOOKPLANE_DATA_DIR: dataDir, DATABASE_URL: "" });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
