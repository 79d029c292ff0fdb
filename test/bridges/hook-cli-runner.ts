/**
 * Test support: runs the real `hookplane` CLI as Claude Code would, its hook stdin JSON on stdin,
 * and collects what it prints and how it exits.
 */
import { spawn } from "node:child_process";
import path from "node:path";

const CLI = path.resolve(import.meta.dirname, "../../bin/hookplane.cjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  exitedAt: number;
  json: () => Record<string, unknown>;
}

export function runHookplaneCli(args: string[], stdin: unknown, env: Record<string, string | undefined>, cli = CLI): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, HOOKPLANE_AGENT: undefined, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, exitedAt: Date.now(), json: () => JSON.parse(stdout) }));
    child.stdin.end(typeof stdin === "string" ? stdin : JSON.stringify(stdin));
  });
}
