/**
 * The `shell` tool: `sh -c` in the run's workspace, in its own process group so a timeout or a
 * cancel kills everything the command started, not just the shell. The server starts it through
 * its sandbox launcher (lib/platform/security/shell-sandbox.ts) and refuses it while running code is off.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { z } from "zod";
import { plainShell, type ShellLauncher, type ToolCallOptions } from "@/lib/core/hooks/ports";
import { CappedBuffer } from "./output-cap";
import { defineTool, type ToolImplementation, type ToolResult } from "@/lib/core/agent/tool-types";
import { getConfig } from "@/lib/platform/config/config";

/** After SIGTERM, a process group gets this long to exit before SIGKILL (herdctl's convention). */
const KILL_GRACE_MS = 1000;
/** After the shell exits, background children still holding the pipes get this long. */
const PIPE_DRAIN_MS = 200;

export interface ShellToolOptions {
  workspaceDir: string;
  timeoutMs: number;
  outputCap: number;
  /**
   * Environment of the command. Defaults to PATH and a workspace HOME only: the server's own
   * environment holds API keys and database URLs an agent must not read.
   */
  env?: Record<string, string | undefined>;
  /** How the shell is started; default a plain `sh -c` (the registry passes the server's sandbox). */
  launcher?: ShellLauncher;
  /** Set when running code is off: every call answers this and starts nothing. */
  refusal?: string;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export function runShell(command: string, options: ShellToolOptions, signal?: AbortSignal, call?: ToolCallOptions): Promise<ToolResult> {
  const env: Record<string, string | undefined> = {
    ...(options.env ?? {
      PATH: getConfig().commandEnvironment.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: options.workspaceDir,
      LANG: "C.UTF-8",
    }),
    // A tool hook's template values, as data (lib/core/hooks/shell-template.ts).
    ...call?.env,
  };
  return new Promise((resolve) => {
    if (options.refusal) {
      resolve({ output: `refused: ${options.refusal}`, isError: true });
      return;
    }
    if (signal?.aborted) {
      resolve({ output: "cancelled before the command started", isError: true });
      return;
    }
    const output = new CappedBuffer(options.outputCap);
    let child: ChildProcess;
    try {
      const { file, args, uid, gid } = (options.launcher ?? plainShell)({ command, cwd: options.workspaceDir });
      child = spawn(file, args, {
        cwd: options.workspaceDir,
        env: env as NodeJS.ProcessEnv,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        uid,
        gid,
      });
    } catch (error) {
      resolve({ output: `could not start the shell: ${(error as Error).message}`, isError: true });
      return;
    }
    let stopped: "timeout" | "cancelled" | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const stop = (why: "timeout" | "cancelled") => {
      if (stopped || child.pid === undefined) return;
      stopped = why;
      killGroup(child.pid, "SIGTERM");
      timers.push(setTimeout(() => killGroup(child.pid!, "SIGKILL"), KILL_GRACE_MS));
    };
    const onAbort = () => stop("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    timers.push(setTimeout(() => stop("timeout"), options.timeoutMs));

    const finish = (spawnError?: Error) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      signal?.removeEventListener("abort", onAbort);
      if (spawnError) {
        resolve({ output: `could not start sh: ${spawnError.message}`, isError: true });
        return;
      }
      let text = output.text();
      let isError = false;
      if (stopped === "timeout") {
        text += `\n[timed out after ${options.timeoutMs} ms; process group killed]`;
        isError = true;
      } else if (stopped === "cancelled") {
        text += "\n[cancelled; process group killed]";
        isError = true;
      } else if (exitCode !== 0) {
        text += exitSignal ? `\n[killed by ${exitSignal}]` : `\n[exit code ${exitCode}]`;
        isError = true;
      }
      resolve({ output: text.replace(/^\n/, ""), isError });
    };

    child.stdout!.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", (err) => finish(err));
    child.on("exit", (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      // Background children (`cmd &`) keep the pipes open; do not wait for them past a short drain.
      timers.push(
        setTimeout(() => {
          if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
          finish();
        }, PIPE_DRAIN_MS),
      );
    });
    child.on("close", () => finish());
  });
}

// Module-level, so every run's registry shares it (and its JSON Schema, built once).
const shellInput = z.object({ command: z.string().min(1).describe("the command line, run with sh -c") });

export function shellTool(options: ShellToolOptions): ToolImplementation {
  return defineTool({
    name: "shell",
    description:
      "Run a shell command (sh -c) in the workspace folder. Returns combined stdout and stderr; " +
      `a non-zero exit is an error. Times out after ${options.timeoutMs} ms.`,
    input: shellInput,
    run: ({ command }, signal, call) => runShell(command, options, signal, call),
  });
}
