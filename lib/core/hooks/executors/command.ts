/**
 * `command`: the shell-hook convention of git, herdctl, Loom, AgenTopology and Claude Code.
 * Exit 0 allows (stdout JSON may say more), exit 2 blocks with stderr as the reason, any other exit
 * is a failure of the hook and follows `onFailure`. The child sees only a minimal environment, the
 * hook variables and the secrets it names: never the server's own environment. HOME is the
 * workspace, so nothing of the server's own home is suggested to it.
 */
import { runCommand, type CommandResult } from "../command-runner";
import { dialectCommandEnv, nonZeroExitReason, plainStdoutIsOutput, skipsAbsentTarget } from "../dialect-contracts";
import { parseJsonAnswer, readHookAnswer } from "../hook-output";
import type { HookDialect } from "../spec";
import type { CommandAction } from "../spec";
import type { SecretValue } from "../ports";
import type { ActionOutcome, ActionRun, CompiledAction } from "./types";

export function compileCommand(action: CommandAction, timeoutMs: number): CompiledAction {
  return {
    secretNames: action.secrets ?? [],
    sideEffect: true,
    executor: {
      async: true,
      // The runner times itself: SIGTERM to the group, SIGKILL a second later.
      timeoutMs: undefined,
      async run(run, signal) {
        const secrets = await run.secrets();
        const result = await runCommand({
          command: action.command,
          stdin: JSON.stringify(run.context()),
          env: commandEnv(run, secrets),
          cwd: run.event.workspaceDir,
          timeoutMs,
          maxOutputBytes: run.options.maxOutputBytes,
          signal,
          launcher: run.options.shellLauncher,
        });
        return interpretExit(result, action.command, timeoutMs, run.hook.dialect);
      },
    },
  };
}

function commandEnv(run: ActionRun, secrets: ReadonlyMap<string, SecretValue>): Record<string, string> {
  const data = run.event.data;
  const env: Record<string, string> = {
    ...run.options.commandBaseEnv,
    // CLAUDE_PROJECT_DIR: Claude Code's hook scripts find their files from it; here it is the folder they run in.
    ...(run.event.workspaceDir ? { HOME: run.event.workspaceDir, CLAUDE_PROJECT_DIR: run.event.workspaceDir } : {}),
    // Tailored AI's scripts read their payload as TAI_* variables (dialect-contracts.ts).
    ...dialectCommandEnv(run.hook.dialect, run.event),
    HOOK_EVENT: run.event.type,
    AGENT_NAME: run.event.agentName,
    TOOL_NAME: typeof data.toolName === "string" ? data.toolName : "",
    ERROR_MSG: String(data.message ?? data.error ?? ""),
    RUN_ID: run.event.runId,
    HOOK_ID: run.hook.id,
  };
  // A command is admin-enabled code on this server; a secret's hosts bind requests Hookplane sends.
  for (const [name, secret] of secrets) env[name] = secret.value;
  return env;
}

export function interpretExit(result: CommandResult, command: string, timeoutMs: number, dialect?: HookDialect): ActionOutcome {
  const io = { exitCode: result.exitCode ?? undefined, stdout: result.stdout, stderr: result.stderr };
  const absent = absentProgram(result, command);
  // Tailored AI: a program that cannot be run never had a verdict to give; the hook is skipped.
  if (absent !== undefined && skipsAbsentTarget(dialect)) return { verdict: "allow", reason: `skipped: ${absent} (Tailored AI skips a hook it cannot run)`, ...io };
  if (result.spawnError) return { failure: `could not start the command: ${result.spawnError}`, ...io };
  if (result.timedOut) return { failure: `timed out after ${timeoutMs} ms`, timedOut: true, ...io };
  if (result.aborted) return { failure: "aborted (the run was cancelled)", ...io };
  switch (result.exitCode) {
    case 0: {
      const parsed = parseJsonAnswer(result.stdout);
      if (parsed.invalid) return { verdict: "allow", reason: `stdout is not valid JSON (${parsed.invalid}); read as plain output`, ...io };
      if (parsed.value === undefined) {
        // Loom: plain stdout is the hook's output, a note for the model's next turn.
        const plain = result.stdout.trim();
        if (plain && plainStdoutIsOutput(dialect)) return { verdict: "allow", output: plain, ...io };
        return { verdict: "allow", ...io };
      }
      const answer = readHookAnswer(parsed.value);
      if (answer.verdict === "block") answer.reason ??= "blocked by the command's answer";
      return { ...answer, ...io };
    }
    case 2:
      return { verdict: "block", reason: result.stderr.trim() || "the command exited with code 2", ...io };
    case 127:
      return { failure: `command not found: ${missingCommand(result.stderr, command)}`, ...io };
    case 126:
      return { failure: `command not executable: ${firstWord(command)}`, ...io };
    case null:
      return { failure: `the command was killed by ${result.signal ?? "a signal"}`, ...io };
    default: {
      const loom = nonZeroExitReason(dialect, result.exitCode, result.stderr);
      if (loom !== undefined) return { failure: loom, ...io };
      const stderr = result.stderr.trim();
      return { failure: `the command exited with code ${result.exitCode}${stderr ? `: ${stderr.slice(0, 2000)}` : ""}`, ...io };
    }
  }
}

/** Why the program could not be run at all (not found, not executable, not spawned), if so. */
function absentProgram(result: CommandResult, command: string): string | undefined {
  if (result.spawnError) return `could not start the command: ${result.spawnError}`;
  if (result.exitCode === 127) return `command not found: ${missingCommand(result.stderr, command)}`;
  if (result.exitCode === 126) return `command not executable: ${firstWord(command)}`;
  return undefined;
}

/** dash says "sh: 1: foo: not found", bash "foo: command not found": name the missing program. */
function missingCommand(stderr: string, command: string): string {
  const match = /([^\s:]+): (?:command )?not found/.exec(stderr);
  return match?.[1] ?? firstWord(command);
}

function firstWord(command: string): string {
  return command.trim().split(/\s+/)[0] ?? command;
}
