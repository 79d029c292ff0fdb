/**
 * The servers npm run bench:ingest (bench/ingest.ts) runs against: the bare node:http server and
 * Hookplane's built web processes, started and set up through the API (the first admin, the
 * bridge's credential, the agent and its hooks); and everything the run holds, released however
 * it ends.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import postgres from "postgres";
import { freePort } from "@/test/free-port";
import { startPgBouncer } from "@/test/pgbouncer";
import { SERVER_NODE_FLAGS } from "@/scripts/node-flags.cjs";
import { freshPostgres, stop, waitForHealth } from "./bench-support";
import { AGENT, GUARD_ID, GUARD_REASON, PG_SERVER_URL, ROOT, type Deployment } from "./ingest-config";

// What the run started or made: each is released by the finally that owns it, or all at once
// (newest first) when the run is interrupted.

const held = new Set<() => Promise<void>>();

/** Registers `release`; the returned function runs it once and forgets it. */
export function hold(release: () => Promise<void> | void): () => Promise<void> {
  let done: Promise<void> | undefined;
  const run = () => {
    held.delete(run);
    return (done ??= Promise.resolve().then(release));
  };
  held.add(run);
  return run;
}

export async function releaseAll() {
  for (const release of [...held].reverse()) await release().catch((error) => console.error(error));
}

// Ctrl-C reaches this process twice under `npm run` (from the terminal, and relayed by tsx's
// parent): the first starts the release, the next ones wait for it rather than cut it short.
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    void releaseAll().finally(() => process.exit(130));
  });
}

/** SIGTERM and wait; a process still there after 15 s (a shutdown that hangs) is killed. */
async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await stop(child);
  clearTimeout(kill);
}

function exited(child: ChildProcess, what: string): Promise<never> {
  return new Promise((_, reject) => child.once("exit", (code, signal) => reject(new Error(`${what} exited (${signal ?? code}) before it was ready`))));
}

export async function startBare(): Promise<{ url: string; pid: number }> {
  const child = spawn(process.execPath, [path.join(ROOT, "bench/bare-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  hold(() => stopProcess(child));
  const line = new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  return { url: await Promise.race([line, exited(child, "bench/bare-server.mjs")]), pid: child.pid! };
}

/**
 * Before a measured level on PostgreSQL: the last level's ledger rows sealed and the database
 * vacuumed, so neither the sealer catching up nor autovacuum (bursts that moved single pairs by
 * 25-70%) lands in whichever side happens to come next. PGlite's server vacuums itself.
 */
export async function settleDatabase(sql: postgres.Sql): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const [{ behind }] = await sql<{ behind: boolean }[]>`
      select coalesce((select max(id) from hook_invocations), 0) > coalesce((select sealed_through from chain_state where table_name = 'hook_invocations'), 0) as behind`;
    if (!behind) break;
  }
  await sql`vacuum (analyze)`;
}

/**
 * The deployment's web processes, started one after the other (the first migrates and seeds), as
 * an operator starts the built server; each is checked to run on the database meant.
 */
export async function startHookplane(d: Deployment, env: Record<string, string>): Promise<{ urls: string[]; pids: number[]; stop: () => Promise<void> }> {
  const stops: (() => Promise<void>)[] = [];
  const urls: string[] = [];
  const pids: number[] = [];
  try {
    for (let i = 0; i < d.processes; i++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      // As production starts it (scripts/node-flags.cjs); BENCH_SERVER_ARGS: node flags for the servers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
      const nodeArgs = process.env.BENCH_SERVER_ARGS?.split(/\s+/).filter(Boolean) ?? [];
      const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, "dist/server.mjs"], {
        cwd: ROOT,
        env: { ...process.env, ...env, NODE_ENV: "production", PORT: String(port), HOSTNAME: "127.0.0.1", LOG_LEVEL: "error", HOOKPLANE_WORKER_CONCURRENCY: "0" },
        stdio: ["ignore", "inherit", "inherit"],
      });
      stops.push(hold(() => stopProcess(child)));
      pids.push(child.pid!);
      await Promise.race([waitForHealth(url, 120_000), exited(child, `hookplane on port ${port}`)]);
      const health = (await (await fetch(`${url}/api/health`)).json()) as { db?: string };
      if (health.db !== d.db) throw new Error(`hookplane on port ${port} runs on ${health.db}, not ${d.db}`);
      urls.push(url);
    }
  } catch (error) {
    await Promise.all(stops.map((s) => s()));
    throw error;
  }
  return { urls, pids, stop: async () => void (await Promise.all(stops.map((s) => s()))) };
}

/** One call of the API for setting up and reading back (not measured: fetch's own pool). */
/** A deployment running, for `use`: its web processes, a client of its database (PostgreSQL) and its backends' pids. */
export interface Running {
  servers: { urls: string[]; pids: number[] };
  sql: postgres.Sql | undefined;
  /** PostgreSQL's backends of this database (none apart on PGlite, which runs inside the web process). */
  databasePids(): Promise<number[]>;
}

/**
 * Starts a deployment on a fresh database (a new PGlite folder, or a new database on
 * DATABASE_URL's server), runs `use`, and releases everything however it ends.
 */
export async function withDeployment<T>(d: Deployment, name: string, use: (running: Running) => Promise<T>): Promise<T> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `hookplane-${name.replaceAll("_", "-")}-`));
  const removeTmp = hold(() => rmSync(tmp, { recursive: true, force: true }));
  let dropDatabase: (() => Promise<void>) | undefined;
  let stopPooler: (() => Promise<void>) | undefined;
  try {
    // Workspaces (one folder per run, made by the bridge) beside the data folder, never inside it.
    const env: Record<string, string> = { HOOKPLANE_DATA_DIR: path.join(tmp, "data"), HOOKPLANE_WORKSPACES_DIR: path.join(tmp, "workspaces") };
    mkdirSync(env.HOOKPLANE_WORKSPACES_DIR);
    let databaseUrl = "";
    if (d.db === "postgres") {
      const fresh = await freshPostgres(PG_SERVER_URL, name);
      dropDatabase = hold(fresh.drop);
      databaseUrl = fresh.url;
      // Processes sharing one PostgreSQL share the key that seals stored secrets (README, Environment).
      env.HOOKPLANE_SECRET_KEY = randomBytes(32).toString("hex");
    }
    env.DATABASE_URL = databaseUrl; // empty: embedded PGlite, whatever the caller's environment says
    if (d.pooler) {
      // The hook path through PgBouncer in transaction mode; LISTEN, migrations and pg-boss past it.
      const bouncer = await startPgBouncer(databaseUrl);
      stopPooler = hold(bouncer.stop);
      Object.assign(env, { DATABASE_URL: bouncer.urlOf(databaseUrl), HOOKPLANE_DB_POOLER: "transaction", DATABASE_DIRECT_URL: databaseUrl });
    }
    const servers = await startHookplane(d, env);
    const sql = databaseUrl ? postgres(databaseUrl, { max: 2, onnotice: () => {} }) : undefined;
    const closeSql = hold(async () => void (await sql?.end({ timeout: 5 })));
    try {
      const databasePids = async () =>
        sql ? (await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`).map((r) => r.pid) : [];
      return await use({ servers, sql, databasePids });
    } finally {
      await closeSql();
      await servers.stop();
    }
  } finally {
    await stopPooler?.();
    await dropDatabase?.();
    await removeTmp();
  }
}

/** A bench's entry point: exit with what `main` returns; on a throw, release what the run holds first and exit 1. */
export function runBench(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      void releaseAll().finally(() => process.exit(1));
    },
  );
}

export async function api<T>(base: string, method: "GET" | "POST", route: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * BENCH_PEOPLE=1: the calls come from a person's bridge credential instead of an operator token,
 * and the agent has a per-person rule and a per-person rate limit besides the guard (addBenchAgent).
 */
const PEOPLE = process.env.BENCH_PEOPLE === "1";

/** The first admin, the bridge's credential (a person's with `person`), the bench agent and its hooks, all through the API. */
export async function setUp(base: string, options: { person: boolean; agents: { name: string; people: boolean }[] } = { person: PEOPLE, agents: [{ name: AGENT, people: PEOPLE }] }): Promise<{ admin: string; operator: string }> {
  const { token: admin } = await api<{ token: string }>(base, "POST", "/api/v1/setup", undefined, { email: "bench@example.com", password: "benchmark!" });
  const { token: operator } = options.person
    ? await api<{ token: string }>(base, "POST", "/api/v1/bridge-credentials", admin, { name: "bench machine" })
    : await api<{ token: string }>(base, "POST", "/api/v1/tokens", admin, { name: "bridge", role: "operator" });
  for (const agent of options.agents) await addBenchAgent(base, admin, agent.name, agent.people);
  return { admin, operator };
}

/**
 * An agent with the guard; with `people`, first a per-person rule (`when` on actor.email, never
 * matching this person: the cost of asking) and a per-person rate limit high enough never to
 * refuse (the cost of counting, every call, in the database).
 */
async function addBenchAgent(base: string, admin: string, name: string, people: boolean) {
  await api(base, "POST", "/api/v1/agents", admin, { name, model: "scripted", tools: [] });
  if (people) {
    await api(base, "POST", "/api/v1/hooks", admin, {
      scope: `agent:${name}`,
      id: "contractors-no-bash",
      event: "tool.pre",
      matcher: "Bash",
      when: "actor.email: /@contractors\\.example$/",
      action: { type: "block", reason: "contractors do not run Bash" },
    });
    await api(base, "POST", "/api/v1/hooks", admin, {
      scope: `agent:${name}`,
      id: "per-person-limit",
      event: "tool.pre",
      action: { type: "limit", max: 1_000_000, windowMs: 60_000, per: "actor" },
    });
  }
  await api(base, "POST", "/api/v1/hooks", admin, {
    scope: `agent:${name}`,
    id: GUARD_ID,
    name: "No prod",
    event: "tool.pre",
    matcher: "Bash",
    action: { type: "block", reason: GUARD_REASON, denyIf: "/srv/prod" },
  });
}
