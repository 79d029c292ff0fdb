/**
 * Shared by the benchmarks: percentiles, peak memory of a process, starting the real server or
 * worker as child processes on a fresh database, and running a benchmark to its exit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { createTestDatabase, type TestDatabase } from "@/test/database";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** The middle sample (of an even count, the upper of the two middle ones). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

/** Peak resident set (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export function startProcess(args: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", ...args], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
}

export async function waitForHealth(base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${base} did not become healthy`);
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** The real server.ts, production build, on the benchmark's database; runs wait for a worker the benchmark starts. */
export function startServer(t: TestDatabase, port: number, dataDir: string): ChildProcess {
  return startProcess(["server.ts"], {
    DATABASE_URL: t.databaseUrl,
    PORT: String(port),
    NODE_ENV: "production",
    HOOKPLANE_WORKER_CONCURRENCY: "0",
    HOOKPLANE_DATA_DIR: dataDir,
  });
}

/**
 * Runs a benchmark of the real server, then exits: 0, or 1 with the error. `main` gets a fresh
 * database on the PostgreSQL of DATABASE_URL (default the local test server) and an empty data
 * folder, both removed after it however it ends; `main` stops the processes it started first.
 */
export function runServerBench(name: string, main: (t: TestDatabase, dataDir: string) => Promise<void>): void {
  process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
  if (!existsSync(path.join(process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"))) {
    console.error(`${name} runs the real server: run \`npm run build\` first`);
    process.exit(1);
  }
  runBench(async () => {
    const t = await createTestDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), `hookplane-${name.replace(":", "-")}-`));
    try {
      await main(t, dataDir);
    } finally {
      await t.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

/**
 * Runs a benchmark's `main`, then exits: 0, or 1 with the error. Exits rather than waits for the
 * event loop to empty: a pool, a timer or a child's pipe left open would otherwise hold it.
 */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * A fresh database named `<prefix>_<time>_<random>` on the PostgreSQL server of `serverUrl`, dropped
 * by the returned `drop` (kept, and named on stderr, with BENCH_KEEP_DB=1: to look at its plans).
 */
export async function freshPostgres(serverUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      if (process.env.BENCH_KEEP_DB === "1") console.error(`kept database ${name} (BENCH_KEEP_DB=1)`);
      else await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
