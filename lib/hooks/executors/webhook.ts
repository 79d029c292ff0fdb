/**
 * `webhook`: POST or PUT the event context as JSON (herdctl, Loom). Headers may use
 * `${secret:NAME}`; secret values are scrubbed from the body. A JSON response may carry a decision
 * in the same forms a command's stdout can.
 */
import { parseJsonAnswer, readHookAnswer } from "../hook-output";
import { HookHttpError, checkUrl, safeFetch } from "../http-client";
import { createRedactor } from "../redact";
import type { WebhookAction } from "../spec";
import { mapStrings, renderTemplate, secretNamesIn, substituteSecrets } from "../template";
import type { ActionOutcome, CompiledAction } from "./types";

export function compileWebhook(action: WebhookAction, timeoutMs: number): CompiledAction {
  // A fixed URL is checked now so a bad one fails when the hook is saved, not when it first fires.
  if (!action.url.includes("{{") && !action.url.includes("${")) checkUrl(action.url, {});
  return {
    secretNames: [...secretNamesIn({ url: action.url, headers: action.headers })],
    executor: {
      async: true,
      timeoutMs: undefined,
      async run(run, signal): Promise<ActionOutcome> {
        const secrets = await run.secrets();
        const vars = run.templateVars();
        const context = run.context();
        const render = (text: string) => substituteSecrets(renderTemplate(text, vars, context), secrets);
        const headers = {
          "content-type": "application/json",
          "user-agent": "hookplane-hooks",
          ...(mapStrings(action.headers ?? {}, render) as Record<string, string>),
        };
        const body = createRedactor(secrets.values())(JSON.stringify(context));
        try {
          const response = await safeFetch(run.options.http, {
            url: render(action.url),
            method: action.method ?? "POST",
            headers,
            body,
            timeoutMs,
            signal,
          });
          if (response.status < 200 || response.status >= 300) {
            return { failure: `HTTP ${response.status} from the webhook`, exitCode: response.status, stdout: response.body };
          }
          const parsed = parseJsonAnswer(response.body);
          const answer = parsed.value === undefined ? { verdict: "allow" as const } : readHookAnswer(parsed.value);
          if (answer.verdict === "block") answer.reason ??= "blocked by the webhook's answer";
          return { ...answer, exitCode: response.status, stdout: response.body };
        } catch (error) {
          const e = error as HookHttpError;
          return { failure: e.message, timedOut: e.timedOut === true };
        }
      },
    },
  };
}
