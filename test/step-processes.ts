/**
 * Shared by the orphan test and `npm run bench:sandbox`: a stand-in worker process running one
 * shell step, and the processes of a step found by markers in their command lines (/proc).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const WORKER = path.join(import.meta.dirname, "shell-step-worker.ts");
const REPO = path.resolve(import.meta.dirname, "..");

/** Processes whose command line contains one of `markers`, this one and `exclude` left out. */
export function processesWith(markers: string[], exclude: number[] = []): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || exclude.includes(pid)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue; // gone meanwhile
    }
    if (markers.some((m) => cmdline.includes(m))) found.push({ pid, cmdline });
  }
  return found;
}

/**
 * Starts a worker (node + tsx) that runs `command` in `workspace` as a `tool` step or a `command`
 * hook, through the machine's sandbox or a plain `sh`; resolves once the step is spawned.
 */
export type StepLaunch = "sandbox" | "supervisor" | "plain";

export async function startStepWorker(options: {
  workspace: string;
  kind: "tool" | "command";
  launch: StepLaunch;
  command: string;
  /** Run the worker as this user (a server that is not root), with a home of its own. */
  as?: { uid: number; gid: number; home: string };
}): Promise<{ worker: ChildProcess; level: string }> {
  const worker = spawn(process.execPath, ["--import", "tsx", WORKER, options.workspace, options.kind, options.launch, options.command], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "inherit"],
    ...(options.as ? { uid: options.as.uid, gid: options.as.gid, env: { ...process.env, HOME: options.as.home } } : {}),
  });
  const level = await new Promise<string>((resolve, reject) => {
    worker.stdout!.on("data", (chunk: Buffer) => {
      const started = /started level=(\S+)/.exec(chunk.toString());
      if (started) resolve(started[1]);
    });
    worker.once("exit", (code) => reject(new Error(`the step worker exited early (${code})`)));
  });
  return { worker, level };
}

/** Kills every process left with a marker (cleanup after a control that is meant to leak). */
export function killLeftovers(markers: string[]) {
  for (const p of processesWith(markers)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}
