/**
 * What keeps the embedded database's process small (issue 12: the web process idle under 250 MB).
 *
 * Compiled code. V8 compiles PGlite's 9 MB of WebAssembly twice by default: at once with its
 * baseline compiler (Liftoff), then the functions that run often again with its optimizing one
 * (TurboFan), and keeps both. The second copy was 55-75 MB of resident memory. Over a short burst
 * the recompiling costs more than it saves (5,000 inserts: 1.1-1.3 s on Liftoff alone against
 * 1.5-1.7 s with tiering, PGlite 0.5, Node 20); under a sustained load it pays (bridged hook calls
 * in process: 628-638 -> 454-467 us of CPU a call), but the idle web process then holds 277-299 MB
 * instead of 234 whatever the tiering budget (bench:start, session 21), past the 250 MB it must stay
 * under. So the process compiles WebAssembly with Liftoff only. The flag is read when a module is
 * compiled, and PGlite's is the only WebAssembly a Hookplane process loads, so it is set just before.
 *
 * A new database. Creating one (initdb, inside PGlite) touches several hundred MB of WebAssembly
 * memory that a WebAssembly instance never gives back: a first start stayed at 440-660 MB for the
 * life of the process. So a data folder that holds no database yet is created by a short-lived
 * child process, and this one opens it as it would open one that already existed.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

let liftoffOnly = false;

/** From now on this process compiles WebAssembly with Liftoff alone (see the top of this file). */
export function useLiftoffOnly(): void {
  if (liftoffOnly) return;
  v8.setFlagsFromString("--liftoff-only");
  liftoffOnly = true;
}

/** Whether `dataDir` already holds a database (PostgreSQL writes PG_VERSION first). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(path.join(dataDir, "PG_VERSION"));
}

/** The script the child runs: create the database with these start parameters, close it, exit. */
const CREATE_SCRIPT = `
const [moduleUrl, dataDir, params] = process.argv.slice(1);
const loaded = await import(moduleUrl);
const { PGlite } = loaded.PGlite ? loaded : loaded.default;
const db = await PGlite.create({ dataDir, startParams: JSON.parse(params) });
await db.close();
`;

/**
 * Creates the database in `dataDir` in a child process when it holds none yet. Throws with the
 * child's own error output when it fails.
 */
export function createDatabaseApart(dataDir: string, startParams: string[]): void {
  if (holdsDatabase(dataDir)) return;
  const moduleUrl = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite")).href;
  const result = spawnSync(
    process.execPath,
    ["--liftoff-only", "--input-type=module", "-e", CREATE_SCRIPT, moduleUrl, dataDir, JSON.stringify(startParams)],
    { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 },
  );
  if (result.status !== 0 || !holdsDatabase(dataDir)) {
    // The child's error line (Node prints the source line and a caret before it, a stack after).
    const lines = result.stderr.split("\n").map((line) => line.trim());
    const said = lines.find((line) => /^(\w*Error\b|error:)/i.test(line)) ?? lines.filter(Boolean).at(-1) ?? `exit ${result.status}`;
    throw new Error(`could not create the embedded database in ${dataDir}: ${result.error?.message ?? said}`);
  }
}
