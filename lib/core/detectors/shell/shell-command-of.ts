/**
 * The shell command a tool call runs, whichever agent sent it: Claude Code's `Bash`, Copilot's
 * `bash` and Gemini CLI's `run_shell_command` send `{command: "…"}`, Cursor's shell hook the same;
 * Codex sends the argv (`["bash", "-lc", "…"]`). Undefined when the call runs no shell command.
 */
import { baseName } from "./shell-script";

const COMMAND_FIELDS = ["command", "cmd", "script"] as const;
const SHELLS = /^(sh|bash|zsh|dash|ksh)$/;

export function shellCommandOf(toolInput: unknown): string | undefined {
  if (toolInput === null || typeof toolInput !== "object") return typeof toolInput === "string" ? undefined : undefined;
  const input = toolInput as Record<string, unknown>;
  for (const field of COMMAND_FIELDS) {
    const value = input[field];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) return argvToScript(value as string[]);
  }
  return undefined;
}

/** `["bash", "-lc", "script"]` runs `script`; any other argv is quoted back into one command. */
function argvToScript(argv: string[]): string {
  if (SHELLS.test(baseName(argv[0])) && argv.length >= 3 && /^-[a-z]*c[a-z]*$/.test(argv[1])) return argv[2];
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(" ");
}
