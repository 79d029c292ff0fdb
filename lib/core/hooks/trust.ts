/**
 * What runs code on the server (hook-model.md, Trust): the one predicate the hook editor, the
 * agent editor, the importer, the hook test and the runtime all ask, so "admin only, behind the
 * switch" means the same set everywhere.
 */

/** The tool that runs shell commands: an agent may be given it, a `tool` hook may name it. */
export const SHELL_TOOL = "shell";

/** A hook action that starts a process or loads code: `command`, `code`, or `tool` naming the shell. */
export function actionRunsCode(action: { type: string; tool?: unknown }): boolean {
  return action.type === "command" || action.type === "code" || (action.type === "tool" && action.tool === SHELL_TOOL);
}

/** An agent's tool list that offers the shell, by name or through `*`. */
export function toolsRunCode(tools: readonly string[] | null | undefined): boolean {
  return (tools ?? []).some((name) => name === SHELL_TOOL || name === "*");
}

/** Why a step that runs code does not run when the operator's switch is off. */
export const CODE_EXECUTION_OFF =
  "running code on this server is off (the server's operator turns it on with HOOKPLANE_ALLOW_CODE_EXECUTION=1)";
