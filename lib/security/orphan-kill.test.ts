/**
 * No orphans (issue 19, item 2): a shell step's whole process tree dies within a second of its
 * worker's death, kill -9 included. A real worker process (a node child running the shell tool or
 * the command hook runner through this machine's sandbox) starts `sleep 3; echo done >> file`, is
 * killed with SIGKILL one second in, and one second later no process of the step may be alive
 * (found by a marker in their command lines, through /proc) and the file never appears.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectShellSandbox } from "./shell-sandbox";

const WORKER = path.join(import.meta.dirname, "test-support", "shell-step-worker.ts");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pids whose command line contains `marker` (the step's shells carry it; its sleep carries a unique duration). */
function processesWith(markers: string[]): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue; // gone meanwhile
    }
    if (markers.some((m) => cmdline.includes(m))) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

interface Trial {
  worker: ChildProcess;
  workspace: string;
  markers: string[];
  file: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

async function startStep(kind: "tool" | "command", launch: "sandbox" | "plain"): Promise<Trial> {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-orphan-")));
  const id = `${process.pid}${Date.now() % 100000}`;
  // A unique sleep duration marks the sleep process itself; the shells carry the whole text.
  const duration = `3.${id}`;
  const markers = [`sleep ${duration}`];
  const file = path.join(workspace, "file");
  const worker = spawn(process.execPath, ["--import", "tsx", WORKER, workspace, kind, launch, `sleep ${duration}; echo done >> file`], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanups.push(async () => {
    worker.kill("SIGKILL");
    for (const p of processesWith(markers)) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await rm(workspace, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    worker.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("started") && resolve());
    worker.on("exit", (code) => reject(new Error(`worker exited early (${code})`)));
  });
  // The step is spawned; wait until its sleep is running, then measure one second from there.
  const deadline = Date.now() + 5_000;
  const stepProcesses = () => processesWith(markers).filter((p) => p.pid !== worker.pid);
  while (!stepProcesses().some((p) => p.cmdline.startsWith("sleep ")) && Date.now() < deadline) await sleep(20);
  expect(stepProcesses().some((p) => p.cmdline.startsWith("sleep "))).toBe(true);
  return { worker, workspace, markers, file };
}

async function killWorker(trial: Trial) {
  await sleep(1_000);
  const exited = new Promise((r) => trial.worker.once("exit", r));
  trial.worker.kill("SIGKILL");
  await exited;
  await sleep(1_000);
}

const sandbox = detectShellSandbox();

describe.each(["tool", "command"] as const)("a %s step dies with its worker", (kind) => {
  it.runIf(sandbox.orphanGuard !== "none")(`kill -9 of the worker 1 s in: nothing of the step is left 1 s later (${sandbox.kind} sandbox)`, async () => {
    const trial = await startStep(kind, "sandbox");
    await killWorker(trial);
    expect(processesWith(trial.markers)).toEqual([]);
    // The step would have written the file 3 s after it started: it never does.
    await sleep(1_500);
    expect(existsSync(trial.file)).toBe(false);
  }, 30_000);

  it.runIf(kind === "tool")("control: a plain detached sh outlives its worker and writes the file (what the guard is for)", async () => {
    const trial = await startStep(kind, "plain");
    await killWorker(trial);
    expect(processesWith(trial.markers).length).toBeGreaterThan(0);
    await sleep(1_500);
    expect(readFileSync(trial.file, "utf8")).toBe("done\n");
  }, 30_000);
});

it("the detected level is the best this machine allows", () => {
  // Asked independently of shell-sandbox.ts: can this process make the namespaces a step needs?
  const works = (args: string[]) => spawnSync(args[0], args.slice(1), { stdio: "ignore" }).status === 0;
  const setpriv = works(["setpriv", "--version"]);
  const root = process.getuid?.() === 0;
  const namespaces = works(["unshare", ...(root ? [] : ["--user", "--map-root-user"]), "--mount", "--pid", "--fork", "--mount-proc", "true"]);
  if (setpriv && namespaces) {
    expect(sandbox).toMatchObject({ kind: root ? "namespaces" : "user-namespaces", orphanGuard: "pid-namespace" });
  } else {
    expect(sandbox.kind).toBe("none");
    expect(sandbox.orphanGuard).toBe(setpriv ? "process-group" : "none");
  }
  if (root) expect(sandbox.runAs?.uid).not.toBe(0);
});
