/**
 * `npm start`: serves the build that exists, building first only when there is none or the
 * sources changed since it was made (scripts/build-stamp.mjs). The server then runs in this very
 * process (the npm script execs node), so the SIGTERM or SIGINT a container runtime, systemd or a
 * terminal sends to `npm start` reaches it, and its graceful shutdown runs. `--worker` starts a
 * process that only works runs instead.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildIsCurrent, root } from "./build-stamp.mjs";

if (process.env.HOOKPLANE_SKIP_BUILD !== "1" && !buildIsCurrent()) {
  console.log("hookplane: building (no build yet, or the sources changed since the last one)");
  // The steps of `npm run build`: the dashboard, then the server and worker (which stamps the build).
  for (const step of [[path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], [path.join(root, "scripts", "build-server.mjs")]]) {
    const result = spawnSync(process.execPath, step, { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}

process.env.NODE_ENV = "production";
process.chdir(root);
await import(pathToFileURL(path.join(root, "dist", process.argv.includes("--worker") ? "worker.mjs" : "server.mjs")).href);
