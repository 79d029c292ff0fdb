/**
 * `hookplane worker`: starts the process that works queued runs (worker.ts; npm run worker), from
 * the package this CLI belongs to, and passes it the signals it gets.
 */
"use strict";

function worker() {
  const { spawn } = require("node:child_process");
  const { existsSync } = require("node:fs");
  const { pathToFileURL } = require("node:url");
  const root = `${require("node:path").resolve(__dirname, "../..")}/`;
  // The compiled worker (npm run build) when there is one; from the sources through tsx otherwise.
  const compiled = `${root}dist/worker.mjs`;
  const { SERVER_NODE_FLAGS } = require("../../scripts/node-flags.cjs");
  const args = [...SERVER_NODE_FLAGS, ...(existsSync(compiled) ? [compiled] : ["--import", pathToFileURL(require.resolve("tsx")).href, `${root}worker.ts`])];
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    // Wherever the command runs, the migrations come from the package (and tsx reads the path
    // aliases from its tsconfig); the data folder stays relative to the caller.
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: process.env.TSX_TSCONFIG_PATH ?? `${root}tsconfig.json`,
      HOOKPLANE_MIGRATIONS_DIR: process.env.HOOKPLANE_MIGRATIONS_DIR ?? `${root}drizzle`,
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

module.exports = { worker };
