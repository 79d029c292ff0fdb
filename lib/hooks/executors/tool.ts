/**
 * `tool`: Tailored AI's hooks: call a registered tool with `{{template}}` args; `skipIf` (a regex
 * over the output) skips the remaining hooks, and on session.start the agent loop. A non-empty
 * output is handed back (scheduled runs prepend it to the prompt).
 */
import { compileLinearRegex } from "../linear-regex";
import type { ToolAction } from "../spec";
import { mapStrings, renderTemplate, secretNamesIn, substituteSecrets } from "../template";
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
        const args = mapStrings(action.args ?? {}, (text) =>
          substituteSecrets(renderTemplate(text, vars, context), secrets),
        ) as Record<string, unknown>;
        const result = await tools.call(action.tool, args, signal);
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
