/**
 * Runs one shell command the way git, husky, Claude Code and Loom hooks run: `sh -c`, the event
 * context as JSON on stdin, output captured up to a cap. The child leads its own process group so a
 * timeout can stop everything it started (SIGTERM to the group, SIGKILL one second later), not just
 * the shell. What wraps the shell is the launcher's choice: the server's sandbox also makes the
 * whole tree die with the process that started it (lib/platform/security/shell-sandbox.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { plainShell, type ShellLauncher } from "./ports";

export interface CommandRequest {
  command: string;
  stdin: string;
  env: Record<string, string>;
  cwd?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL; herdctl's one second. */
  killGraceMs?: number;
  /** How the shell is started (the server's sandbox); default a plain `sh -c`. */
  launcher?: ShellLauncher;
}

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  /** The process could not be started at all (bad cwd, no sh). */
  spawnError?: string;
}

export function runCommand(req: CommandRequest): Promise<CommandResult> {
  return new Promise((resolve) => {
    const stdout = new OutputBuffer(req.maxOutputBytes);
    const stderr = new OutputBuffer(req.maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let lastResort: NodeJS.Timeout | undefined;
    let exitTimer: NodeJS.Timeout | undefined;

    let child: ChildProcessWithoutNullStreams;
    try {
      const { file, args, uid, gid } = (req.launcher ?? plainShell)({ command: req.command, cwd: req.cwd });
      child = spawn(file, args, {
        uid,
        gid,
        cwd: req.cwd,
        env: req.env as NodeJS.ProcessEnv,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ exitCode: null, signal: null, stdout: "", stderr: "", truncated: false, timedOut: false, aborted: false, spawnError: (error as Error).message });
      return;
    }

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(lastResort);
      clearTimeout(exitTimer);
      req.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        timedOut,
        aborted,
        spawnError,
      });
    };

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // The group is already gone.
      }
    };
    const stop = () => {
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), req.killGraceMs ?? 1000);
      // A grandchild that left the group could hold the pipes open forever: never wait on it.
      lastResort = setTimeout(() => finish(null, "SIGKILL"), (req.killGraceMs ?? 1000) + 1000);
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };

    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      stop();
    }, req.timeoutMs);
    if (req.signal?.aborted) onAbort();
    else req.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => finish(null, null, error.message));
    child.on("close", (code, signal) => finish(code, signal));
    // The shell exited but something it backgrounded still holds the pipes: report the shell's
    // exit instead of waiting for the stragglers.
    child.on("exit", (code, signal) => {
      exitTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, 250);
    });
    // A command that never reads stdin closes it early: EPIPE is expected, not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(req.stdin);
  });
}

/** Collects output up to a byte cap and drops the rest (herdctl: 1 MB). */
class OutputBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}

  push(chunk: Buffer) {
    if (this.size >= this.cap) {
      this.truncated = true;
      return;
    }
    const room = this.cap - this.size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return this.chunks.length === 1 ? this.chunks[0].toString("utf8") : Buffer.concat(this.chunks).toString("utf8");
  }
}
