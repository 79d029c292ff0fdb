/**
 * Runs a benchmark written in TypeScript as production runs Hookplane's code: bundled by esbuild
 * as scripts/build-server.mjs bundles (scripts/node-bundle.mjs), started by node with the servers'
 * flags, not through tsx. tsx compiles with esbuild's keepNames, which wraps every function a
 * module defines in a call that sets its name, each time it is defined: a closure made per hook
 * call paid it per call. Measured on bench:ingest-cpu (PostgreSQL, 50 sessions × 20 calls):
 * 124 µs of CPU a call through tsx, 81 µs bundled, and tsx's profile charged the run session's
 * setup with several times its 4.5 µs.
 *   node bench/bundled.mjs bench/ingest-cpu.ts [args...]; BENCH_NODE_ARGS adds node flags (`--cpu-prof`).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import nodeFlags from "../scripts/node-flags.cjs";
import { NODE_BUNDLE } from "../scripts/node-bundle.mjs";

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write("usage: node bench/bundled.mjs <bench/file.ts> [args...]\n");
  process.exit(2);
}
// Inside the checkout, so the packages left out of the bundle resolve from its node_modules.
const folder = path.join("node_modules", ".cache", "hookplane-bench");
mkdirSync(folder, { recursive: true });
const outfile = path.join(folder, `${path.basename(entry, ".ts")}.mjs`);
await build({ ...NODE_BUNDLE, entryPoints: [entry], outfile });
const extra = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
const run = spawnSync(process.execPath, [...nodeFlags.SERVER_NODE_FLAGS, ...extra, outfile, ...args], { stdio: "inherit" });
process.exit(run.status ?? 1);
