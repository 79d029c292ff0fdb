/**
 * The production server (`dist/server.mjs` through scripts/start.mjs, Next's build in `.next`) on a
 * fresh database, for tests whose answer comes from the server layer itself: Next's router, its
 * pages and server actions as a browser reaches them, the web edge in front. Needs `npm run build`
 * first (npm test builds before vitest). On a new PGlite folder, or a new database on the
 * PostgreSQL server of DATABASE_URL.
 *
 * `serverAction` calls an action as the browser's fetch does (`Next-Action` with its id from the
 * build's manifest, the arguments in React's reply encoding), so a test can send a form's fields as
 * an attacker would, unchanged by any page.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { freePort } from "@/test/free-port";
import { buildIsCurrent } from "@/scripts/build-stamp.mjs";
import { SERVER_NODE_FLAGS } from "@/scripts/node-flags.cjs";

export interface RealServer {
  base: string;
  /** The fresh PostgreSQL database it serves (PostgreSQL only), for reading back what it stored. */
  databaseUrl?: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The build exists and was made from the sources as they are (scripts/build-stamp.mjs). A test's
 * `npm start` would otherwise build again, rewriting .next under the servers other test files run
 * at the same time (their pages then answered 500), and a test with HOOKPLANE_SKIP_BUILD would
 * test code that is not the sources'.
 */
export function assertBuilt(): void {
  if (!existsSync(path.join(".next", "BUILD_ID")) || !existsSync("dist/server.mjs")) throw new Error("run `npm run build` before this test (npm test does)");
  if (!buildIsCurrent()) throw new Error("the build is older than the sources: run `npm run build` before this test (npm test does)");
}

export interface RealServerOptions {
  /** PostgreSQL: the variables that point the server at its fresh database (default: DATABASE_URL is it). */
  databaseEnv?: (databaseUrl: string) => Record<string, string>;
  /** How long it may take to answer /api/health (default 90 s). */
  startWithinMs?: number;
}

export async function startRealServer(env: Record<string, string> = {}, options: RealServerOptions = {}): Promise<RealServer> {
  assertBuilt();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let pg: TestDatabase | undefined;
  let dataDir: string | undefined;
  const { NODE_ENV: _, DATABASE_URL: serverUrl, ...inherited } = process.env;
  const childEnv: Record<string, string | undefined> = { ...inherited, PORT: String(port), LOG_LEVEL: "warn", HOOKPLANE_PUBLIC_URL: base, HOOKPLANE_SKIP_BUILD: "1", ...env };
  if (serverUrl) {
    pg = await createTestDatabase();
    Object.assign(childEnv, options.databaseEnv ? options.databaseEnv(pg.databaseUrl!) : { DATABASE_URL: pg.databaseUrl });
  } else {
    dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-real-server-"));
    childEnv.HOOKPLANE_DATA_DIR = dataDir;
  }
  let output = "";
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_FLAGS, "scripts/start.mjs"], { env: childEnv as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const cleanUp = async () => {
    await pg?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.startWithinMs ?? 90_000);
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      await cleanUp();
      throw new Error(`the server did not start:\n${output}`);
    }
    if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    databaseUrl: pg?.databaseUrl,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await cleanUp();
    },
  };
}

/** The id Next gave a server action in this build, by its exported name. */
export function serverActionId(name: string): string {
  const manifest = JSON.parse(readFileSync(path.join(".next", "server", "server-reference-manifest.json"), "utf8")) as { node: Record<string, { exportedName: string }> };
  const found = Object.entries(manifest.node).find(([, action]) => action.exportedName === name);
  if (!found) throw new Error(`no server action ${name} in the build`);
  return found[0];
}

/**
 * A form's `(previousState, formData)` action called as `useActionState` calls it from the page
 * at `pagePath`: the form's fields first, then the arguments that point at them (React decodes
 * the reply as it streams in).
 */
export function callFormAction(server: RealServer, pagePath: string, name: string, fields: Record<string, string>, cookie?: string): Promise<Response> {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(`_1_${key}`, value);
  body.append("0", JSON.stringify([{}, "$K1"]));
  return fetch(`${server.base}${pagePath}`, {
    method: "POST",
    headers: { "next-action": serverActionId(name), origin: server.base, accept: "text/x-component", ...(cookie && { cookie }) },
    body,
    redirect: "manual",
  });
}
