/**
 * `npm run bench:hostile`: starts the real server (server.ts, on a fresh PGlite folder, or on a
 * new database of DATABASE_URL's server) and measures what an unauthenticated flood costs it:
 * RSS at idle and at its peak under many 50 MB chunked bodies to POST /api/v1/setup and many
 * upgrades to paths that are not the stream, plus the open file descriptors before and after.
 * The target: peak within 100 MB of idle, and every socket answered and closed.
 *
 * Uses the production build when one exists (NEXT_DIST_DIR or .next), else `--dev`.
 * FLOOD_BODIES (default 40), FLOOD_BODY_MB (50), FLOOD_UPGRADES (400) change the flood.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@/test/free-port";

const BODIES = Number(process.env.FLOOD_BODIES ?? 40);
const BODY_MB = Number(process.env.FLOOD_BODY_MB ?? 50);
const UPGRADES = Number(process.env.FLOOD_UPGRADES ?? 400);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;

const built = existsSync(path.join(process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"));
const dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-flood-"));

async function serverEnv(): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LOG_LEVEL: "warn", HOOKPLANE_DATA_DIR: dataDir };
  if (built) Object.assign(env, { NODE_ENV: "production" });
  if (process.env.DATABASE_URL) {
    const postgres = (await import("postgres")).default;
    const name = `hp_flood_${Date.now().toString(36)}`;
    const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
  }
  return env;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

async function waitHealthy(): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error("the server did not become healthy");
}

/** One unauthenticated chunked upload of `mb` MB; resolves with the status and how much was sent before the server cut it. */
function hugeUpload(mb: number): Promise<{ status: number | "reset"; sentMb: number }> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    let status: number | "reset" = "reset";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ status, sentMb: sent / 1024 / 1024 });
    };
    const req = request(`${base}/api/v1/setup`, { method: "POST", agent: false, headers: { "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
      status = res.statusCode ?? "reset";
      res.resume();
      res.on("end", finish);
      res.on("close", finish);
    });
    req.on("error", finish);
    req.on("close", finish);
    const total = mb * 1024 * 1024;
    const pump = () => {
      while (sent < total && !done && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

function strayUpgrade(i: number, target = `/api/v1/agents?flood=${i}`): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve("no answer in 10 s");
    }, 10_000);
    socket.on("data", (d) => {
      answer += d;
      // An accepted upgrade stays open: its status line is all we wanted.
      if (answer.startsWith("HTTP/1.1 101")) socket.destroy();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer.split("\r\n")[0] || "closed without answer");
    });
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
}

function tally(values: (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[String(v)] = (counts[String(v)] ?? 0) + 1;
  return counts;
}

async function main() {
  const args = ["--import", "tsx", "server.ts", ...(built ? [] : ["--dev"])];
  const child = spawn(process.execPath, args, { env: await serverEnv(), stdio: ["ignore", "ignore", "inherit"] });
  try {
    await waitHealthy();
    // Warm up what the flood touches, so compilation (dev) or first-use allocations are not counted.
    for (let i = 0; i < 3; i++) {
      await fetch(`${base}/api/v1/setup`, { method: "POST", body: "{}" }).then((r) => r.text());
      await fetch(`${base}/api/health`).then((r) => r.text());
      await hugeUpload(2);
      await strayUpgrade(-1);
    }
    await new Promise((r) => setTimeout(r, 3_000));
    const idleSamples: number[] = [];
    for (let i = 0; i < 10; i++) {
      idleSamples.push(rssMb(child.pid!));
      await new Promise((r) => setTimeout(r, 200));
    }
    const idle = idleSamples.sort((a, b) => a - b)[5];
    const fdsIdle = openFds(child.pid!);

    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid!))), 50);
    const started = Date.now();
    const [uploads, upgrades] = await Promise.all([
      Promise.all(Array.from({ length: BODIES }, () => hugeUpload(BODY_MB))),
      Promise.all(Array.from({ length: UPGRADES }, (_, i) => strayUpgrade(i))),
    ]);
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 2_000));
    clearInterval(sampler);
    const fdsAfter = openFds(child.pid!);
    const healthy = (await fetch(`${base}/api/health`)).ok;
    // Next's own dev socket must still be reachable through the upgrade router.
    const hmr = built ? "n/a (production)" : await strayUpgrade(0, "/_next/hmr?id=bench");

    const sent = uploads.map((u) => u.sentMb).sort((a, b) => a - b);
    console.log(`hostile flood against server.ts (${built ? "production build" : "dev"}, ${process.env.DATABASE_URL ? "postgres" : "pglite"})`);
    console.log(`  flood: ${BODIES} × ${BODY_MB} MB chunked POST /api/v1/setup + ${UPGRADES} upgrades to /api/v1/agents, in ${seconds.toFixed(1)} s`);
    console.log(`  uploads answered: ${JSON.stringify(tally(uploads.map((u) => u.status)))}; MB sent before the server cut each: median ${sent[Math.floor(sent.length / 2)]?.toFixed(1)}, max ${sent.at(-1)?.toFixed(1)}`);
    console.log(`  upgrades answered: ${JSON.stringify(tally(upgrades))}`);
    console.log(`  RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, delta ${(peak - idle).toFixed(0)} MB (target ≤ 100 MB)`);
    console.log(`  open fds idle ${fdsIdle}, after the flood ${fdsAfter}; healthy after: ${healthy}; dev HMR upgrade: ${hmr}`);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
