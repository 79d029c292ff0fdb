/**
 * The three entry points (the web server, the worker, the migration runner) check the
 * configuration before anything else: a bad value ends the process with exit code 1 and the
 * variable's name on stderr, before a database is opened (the data directory stays uncreated).
 * From the sources through tsx; server.db.test.ts does the same through `npm start` on the build.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const root = mkdtempSync(path.join(tmpdir(), "hookplane-config-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function start(entry: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const { DATABASE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", entry], { env: { ...inherited, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
}

it.each([
  ["the web server", "server.ts"],
  ["the worker", "worker.ts"],
  ["the migration runner", "db/migrate-cli.ts"],
])("%s refuses to start on a bad value, naming the variable", async (_name, entry) => {
  const dataDir = path.join(root, path.basename(entry, ".ts"));
  const { code, stderr } = await start(entry, { HOOKPLANE_DATA_DIR: dataDir, HOOKPLANE_DB_POOL: "abc", HOOKPLANE_SHELL_NETWORK: "bridge" });
  expect(code).toBe(1);
  expect(stderr).toBe(
    'hookplane: the configuration is not valid:\n  HOOKPLANE_DB_POOL: expected a positive integer, got "abc"\n  HOOKPLANE_SHELL_NETWORK: expected one of "none", "host", got "bridge"\n',
  );
  expect(existsSync(dataDir)).toBe(false);
}, 60_000);
