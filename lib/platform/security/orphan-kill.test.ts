/**
 * No orphans (issue 19, item 2): a shell step's whole process tree dies within a second of its
 * worker's death, kill -9 included. A real worker process (a node child running the shell tool or
 * the command hook runner through this machine's sandbox) starts `sleep 3; echo done >> file`, is
 * killed with SIGKILL one second in, and one second later no process of the step may be alive
 * (found by a marker in their command lines, through /proc) and the file never appears.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectShellSandbox } from "./shell-sandbox";
import { killLeftovers, processesWith, startStepWorker, type StepLaunch } from "@/test/step-processes";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Trial {
  worker: ChildProcess;
  level: string;
  markers: string[];
  file: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

async function startStep(kind: "tool" | "command", launch: StepLaunch, as?: { uid: number; gid: number; home: string }): Promise<Trial> {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-orphan-")));
  if (as) chownSync(workspace, as.uid, as.gid);
  // A unique sleep duration (3 s and a few nanoseconds) marks the sleep process itself; the shells
  // carry the whole text.
  const markers = [`sleep 3.000${process.pid}${Date.now() % 100000}`];
  const file = path.join(workspace, "file");
  const { worker, level } = await startStepWorker({ workspace, kind, launch, as, command: `${markers[0]}; echo done >> file` });
  cleanups.push(async () => {
    worker.kill("SIGKILL");
    killLeftovers(markers);
    await rm(workspace, { recursive: true, force: true });
  });
  // The step is spawned; wait until its sleep runs, then measure one second from there.
  const sleeping = () => processesWith(markers, [worker.pid!]).some((p) => p.cmdline.startsWith("sleep "));
  const deadline = Date.now() + 5_000;
  while (!sleeping() && Date.now() < deadline) await sleep(20);
  expect(sleeping()).toBe(true);
  return { worker, level, markers, file };
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
    expect(trial.level).toBe(sandbox.kind);
    await killWorker(trial);
    expect(processesWith(trial.markers)).toEqual([]);
    // The step would have written the file 3 s after it started: it never does.
    await sleep(1_500);
    expect(existsSync(trial.file)).toBe(false);
  }, 30_000);
});

it.runIf(process.getuid?.() === 0)("a server that is not root: the user-namespace sandbox holds the same way", async () => {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-orphan-home-")));
  chownSync(home, 65534, 65534);
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const trial = await startStep("tool", "sandbox", { uid: 65534, gid: 65534, home });
  expect(trial.level).toBe("user-namespaces");
  await killWorker(trial);
  expect(processesWith(trial.markers)).toEqual([]);
  await sleep(1_500);
  expect(existsSync(trial.file)).toBe(false);
}, 30_000);

it.runIf(sandbox.orphanGuard !== "none")("without namespaces: the supervising shell kills the step's process group", async () => {
  const trial = await startStep("command", "supervisor");
  await killWorker(trial);
  expect(processesWith(trial.markers)).toEqual([]);
  await sleep(1_500);
  expect(existsSync(trial.file)).toBe(false);
}, 30_000);

it("control: a plain detached sh outlives its worker and writes the file (what the guard is for)", async () => {
  const trial = await startStep("tool", "plain");
  await killWorker(trial);
  expect(processesWith(trial.markers).length).toBeGreaterThan(0);
  // It finishes on its own, however loaded the machine: wait for the file (up to 5 s more).
  const deadline = Date.now() + 5_000;
  while (!existsSync(trial.file) && Date.now() < deadline) await sleep(50);
  expect(readFileSync(trial.file, "utf8")).toBe("done\n");
}, 30_000);

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
