/**
 * A stand-in worker for the orphan tests: runs one shell step the way the server does (the `shell`
 * tool, or a `command` hook's runner) through this machine's sandbox, the fallback without
 * namespaces (a supervising shell), or a plain `sh` for the control, and prints "started" once the
 * step is spawned. The test kills it with SIGKILL.
 *
 * argv: <workspace> <tool|command> <sandbox|supervisor|plain> <command>
 */
import { runCommand } from "@/lib/core/hooks/command-runner";
import { plainShell } from "@/lib/core/hooks/ports";
import { loadConfig } from "@/lib/platform/config/config";
import { serverShellPolicy } from "@/lib/platform/security/code-execution";
import { detectShellSandbox, sandboxLauncher } from "@/lib/platform/security/shell-sandbox";
import { runShell } from "@/lib/features/tools/shell-tool";

const [workspace, kind, launch, command] = process.argv.slice(2);
const launcher =
  launch === "plain"
    ? plainShell
    : launch === "supervisor"
      ? sandboxLauncher({ ...detectShellSandbox(), kind: "none", orphanGuard: "process-group" }, { hide: [], privateTmp: [], network: "host" })
      : serverShellPolicy(loadConfig({ ...process.env, HOOKPLANE_ALLOW_CODE_EXECUTION: "1" })).launcher;
const step =
  kind === "tool"
    ? runShell(command, { workspaceDir: workspace, timeoutMs: 60_000, outputCap: 10_000, launcher })
    : runCommand({ command, stdin: "{}", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: workspace, timeoutMs: 60_000, maxOutputBytes: 10_000, launcher });
// Which level the step runs under, as this worker (its user) detected it.
console.log(`started level=${launch === "sandbox" ? detectShellSandbox().kind : launch}`);
await step;
console.log("finished");
