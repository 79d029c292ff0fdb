/**
 * `tool`: Tailored AI's hooks: call a registered tool with `{{template}}` args; `skipIf` (a regex
 * over the output) skips the remaining hooks, and on session.start the agent loop. A non-empty
 * output is handed back (scheduled runs prepend it to the prompt). For the shell tool, template
 * values reach the command as environment variables, never as shell text (shell-template.ts).
 */
import { compileLinearRegex } from "../linear-regex";
import type { ToolAction } from "../spec";
import type { ToolCallOptions } from "../ports";
import { bindTemplateToEnv } from "../shell-template";
import { mapStrings, renderTemplate, secretNamesIn, substituteSecrets, type TemplateVars } from "../template";
import { SHELL_TOOL } from "../trust";
import type { CompiledAction } from "./types";

export function compileTool(action: ToolAction, timeoutMs: number): CompiledAction {
  const skipIf = action.skipIf ? compileLinearRegex(action.skipIf) : undefined;
  return {
    secretNames: [...secretNamesIn(action.args)],
    executor: {
      async: true,
      timeoutMs,
      async run(run, signal) {
        const tools = run.options.tools;
        if (!tools) return { failure: "no tool port is configured" };
        const secrets = await run.secrets();
        const vars = run.templateVars();
        const context = run.context();
        const { args, options } =
          action.tool === SHELL_TOOL
            ? shellArgs(action.args ?? {}, vars, context, secrets)
            : {
                args: mapStrings(action.args ?? {}, (text) => substituteSecrets(renderTemplate(text, vars, context), secrets)) as Record<string, unknown>,
                options: undefined,
              };
        const result = await tools.call(action.tool, args, signal, options);
        if (result.isError) return { failure: `tool ${action.tool} failed: ${result.output}`, stdout: result.output };
        const output = result.output ?? "";
        if (skipIf?.test(output)) {
          return { verdict: "skip", reason: `skipIf /${action.skipIf}/ matched the output of ${action.tool}`, stdout: output };
        }
        return { verdict: "allow", output: output.trim() ? output : undefined, stdout: output };
      },
    },
  };
}

/**
 * The shell's `command` with its placeholders bound to variables. Secrets are substituted only in
 * the hook's own text: a template value that spells `${secret:X}` stays data.
 */
function shellArgs(
  raw: Record<string, unknown>,
  vars: TemplateVars,
  context: Record<string, unknown>,
  secrets: ReadonlyMap<string, string>,
): { args: Record<string, unknown>; options: ToolCallOptions } {
  if (typeof raw.command !== "string") return { args: raw, options: {} };
  const bound = bindTemplateToEnv(raw.command, vars, context);
  return { args: { ...raw, command: substituteSecrets(bound.command, secrets) }, options: { env: bound.env } };
}
