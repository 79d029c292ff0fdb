/**
 * `tool`: Tailored AI's hooks: call a registered tool with `{{template}}` args; `skipIf` (a regex
 * over the output) skips the remaining hooks, and on session.start the agent loop. A non-empty
 * output is handed back (scheduled runs prepend it to the prompt).
 *
 * A tool's input is text a file, a memory note or the transcript can hold, so secrets reach a
 * tool only as `http_request`'s credentials (secret-placement.ts): header values and the URL's
 * userinfo, sent only to a host every named secret lists, the userinfo as an `authorization` header.
 * For the shell tool, template values reach the command as environment variables, never as shell
 * text (shell-template.ts).
 */
import { skipsAbsentTarget } from "../dialect-contracts";
import { compileLinearRegex } from "../linear-regex";
import { basicAuthorization, splitUserinfo } from "../outbound-url";
import { secretsNotAllowedFor } from "../secret-placement";
import { isDenyIfDetects, type ToolAction } from "../spec";
import type { ToolCallOptions } from "../ports";
import { bindTemplateToEnv } from "../shell-template";
import { mapStrings, renderTemplate, renderWithSecrets, secretNamesIn, type TemplateVars } from "../template";
import { SHELL_TOOL } from "../trust";
import { compileScan, listFindings, redactFindings } from "./detector-scan";
import type { ActionRun, CompiledAction } from "./types";

export function compileTool(action: ToolAction, timeoutMs: number): CompiledAction {
  const skipIf = action.skipIf ? compileLinearRegex(action.skipIf) : undefined;
  const denyIf = typeof action.denyIf === "string" && action.denyIf ? compileLinearRegex(action.denyIf) : undefined;
  // Detectors that read text (the schema refuses the others here), over what the tool returned.
  const scan = isDenyIfDetects(action.denyIf) ? compileScan(action.denyIf.detects, action.denyIf.minConfidence) : undefined;
  const secretNames = action.tool === "http_request" ? [...secretNamesIn(action.args)] : [];
  return {
    secretNames,
    sideEffect: true,
    // The args as written (templates unrendered): what the tool reads them for is its own business.
    retrySafe: (options) => options.tools?.retrySafe?.(action.tool, action.args ?? {}) ?? false,
    executor: {
      async: true,
      timeoutMs,
      async run(run, signal) {
        const tools = run.options.tools;
        if (!tools) return { failure: "no tool port is configured" };
        // Tailored AI: a tool that is not registered (a disabled plugin, a rename) skips this hook only.
        if (skipsAbsentTarget(run.hook.dialect) && tools.list && !tools.list().some((t) => t.name === action.tool)) {
          return { verdict: "allow", reason: `skipped: tool ${action.tool} is not registered (Tailored AI skips the hook and goes on)` };
        }
        const vars = run.templateVars();
        const context = run.context();
        const shell = action.tool === SHELL_TOOL ? shellArgs(action.args ?? {}, vars, context) : undefined;
        let args = shell?.args ?? (mapStrings(action.args ?? {}, (text) => renderTemplate(text, vars, context)) as Record<string, unknown>);
        if (secretNames.length > 0) {
          const credentials = await httpCredentials(action, args, run);
          if (credentials.failure !== undefined) return { failure: credentials.failure };
          args = credentials.args;
        }
        const result = await tools.call(action.tool, args, signal, shell?.options);
        if (result.isError) return { failure: `tool ${action.tool} failed: ${result.output}`, stdout: result.output };
        const output = result.output ?? "";
        // Tailored AI's denyIf: the policy tool's own words are the refusal.
        if (denyIf?.test(output)) return { verdict: "block", reason: output.trim() || `denyIf /${action.denyIf}/ matched`, stdout: output };
        if (scan) {
          const scanned = await scan.scanAwaited(run, signal, () => (output ? [output] : []));
          if ("failure" in scanned) return { ...scanned, stdout: output };
          const findings = scanned.texts.flatMap((t) => t.findings);
          if (findings.length > 0) {
            const where = (f: { range?: [number, number] }) => `in the output of ${action.tool}${f.range ? ` at ${f.range[0]}–${f.range[1]}` : ""}`;
            // The ledger keeps the output with what was found replaced (a secret is stored nowhere).
            return { verdict: "block", reason: `refused: ${listFindings(findings, where)}`, stdout: redactFindings(output, findings) };
          }
        }
        if (skipIf?.test(output)) {
          return { verdict: "skip", reason: `skipIf /${action.skipIf}/ matched the output of ${action.tool}`, stdout: output };
        }
        return { verdict: "allow", output: output.trim() ? output : undefined, stdout: output };
      },
    },
  };
}

/** http_request's args with the secrets in its headers and userinfo, once the host is allowed. */
async function httpCredentials(
  action: ToolAction,
  rendered: Record<string, unknown>,
  run: ActionRun,
): Promise<{ args: Record<string, unknown>; failure?: undefined } | { failure: string }> {
  const secrets = await run.secrets();
  const rawUrl = typeof rendered.url === "string" ? rendered.url : "";
  const { url, userinfo } = splitUserinfo(rawUrl);
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return { failure: `tool ${action.tool}: invalid URL ${url}` };
  }
  const notAllowed = secretsNotAllowedFor(host, secrets);
  if (notAllowed) return { failure: notAllowed };
  const values = new Map([...secrets].map(([name, s]) => [name, s.value]));
  const vars = run.templateVars();
  const context = run.context();
  const headers = {
    ...(mapStrings(action.args?.headers ?? {}, (text) => renderWithSecrets(text, vars, context, values)) as Record<string, string>),
  };
  if (userinfo !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
    headers.authorization = basicAuthorization(userinfo, values);
  }
  return { args: { ...rendered, url, headers } };
}

/** The shell's `command` with its placeholders bound to environment variables (values stay data). */
function shellArgs(raw: Record<string, unknown>, vars: TemplateVars, context: Record<string, unknown>): { args: Record<string, unknown>; options: ToolCallOptions } {
  if (typeof raw.command !== "string") return { args: raw, options: {} };
  const bound = bindTemplateToEnv(raw.command, vars, context);
  return { args: { ...raw, command: bound.command }, options: { env: bound.env } };
}
