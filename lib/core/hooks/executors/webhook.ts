/**
 * `webhook`: POST or PUT the event context as JSON (herdctl, Loom). Header values and the URL's
 * userinfo may use `${secret:NAME}`, and only when every secret the hook names lists the URL's host
 * among its own; userinfo becomes a Basic `authorization` header. Secret values (the hook's, and
 * with the app's notice port every one the store holds) are scrubbed from the body. A Hookplane
 * body carries `notice`: one line, the run's link and, on approval.requested, the decision links.
 * A JSON response may carry a decision in the same forms a command's stdout can.
 */
import { normalizeHost } from "@/lib/core/outbound/address-policy";
import { missingSecretsAreEmpty, readsWebhookAnswer, webhookBodyFor } from "../dialect-contracts";
import { parseJsonAnswer, readHookAnswer } from "../hook-output";
import { HookHttpError, safeFetch } from "../http-client";
import { noticeHeadline, runLink } from "../notice-text";
import type { WebhookAction } from "../spec";
import { webhookRequest } from "../notice-delivery";
import { renderTemplate, renderWithSecrets, secretNamesIn } from "../template";
import { noticeMasker } from "./notify";
import type { ActionOutcome, ActionRun, CompiledAction } from "./types";

/** `notice` of a Hookplane webhook body: the one line, the run, and on approval.requested the approval and its links. */
async function webhookNotice(run: ActionRun, mask: (text: string) => string, host: string) {
  const port = run.options.notices;
  if (!port) return undefined;
  const approvalId = run.event.data.approvalId;
  const approval =
    run.event.type === "approval.requested" && typeof approvalId === "string"
      ? await port.approvalNotice(approvalId, `webhook:${host}`, { perApprover: true })
      : undefined;
  return {
    summary: mask(noticeHeadline(run.event)),
    runUrl: runLink(port.publicUrl, run.event.runId),
    ...(approval && {
      approvalUrl: approval.approvalUrl,
      ...(approval.approvers.length && { approvers: approval.approvers.map((a) => a.label) }),
      decisionLinks: approval.links.map((l) => ({ recipient: l.recipient, label: l.label, approve: l.approve.url, deny: l.deny.url })),
    }),
  };
}

export function compileWebhook(action: WebhookAction, timeoutMs: number): CompiledAction {
  const secretNames = [...secretNamesIn({ url: action.url, headers: action.headers })];
  return {
    secretNames,
    executor: {
      async: true,
      timeoutMs: undefined,
      async run(run, signal): Promise<ActionOutcome> {
        const secrets = await run.secrets();
        const vars = run.templateVars();
        const context = run.context();
        const values = new Map([...secrets].map(([name, s]) => [name, s.value]));
        // herdctl: an environment variable that is not set is sent as empty text.
        if (missingSecretsAreEmpty(run.hook.dialect)) for (const name of secretNames) if (!values.has(name)) values.set(name, "");
        // The URL is rendered without secret values: they go in headers only, after the checks.
        const request = webhookRequest(renderTemplate(action.url, vars, context), action.headers ?? {}, {
          http: run.options.http,
          secrets,
          values,
          render: (text) => renderWithSecrets(text, vars, context, values),
        });
        if ("failure" in request) return request;
        const { url, headers } = request;
        const mask = await noticeMasker(run, values.values());
        const contextJson = mask(JSON.stringify(webhookBodyFor(run.hook.dialect, run.event, context)));
        // Hookplane's own body also says what happened in a line, with links back (and decision links).
        const notice = run.hook.dialect === undefined ? await webhookNotice(run, mask, url.hostname) : undefined;
        const body = notice && contextJson.endsWith("}") && contextJson.length > 2 ? `${contextJson.slice(0, -1)},"notice":${JSON.stringify(notice)}}` : contextJson;
        try {
          const response = await safeFetch(run.options.http, {
            url,
            method: action.method ?? "POST",
            headers,
            body,
            timeoutMs,
            signal,
          });
          if (response.status < 200 || response.status >= 300) {
            return { failure: `HTTP ${response.status} from the webhook`, exitCode: response.status, stdout: response.body };
          }
          // Loom's webhooks notify only: whatever the endpoint answers, the run goes on.
          if (!readsWebhookAnswer(run.hook.dialect)) return { verdict: "allow", exitCode: response.status, stdout: response.body };
          const parsed = parseJsonAnswer(response.body);
          const answer = parsed.value === undefined ? { verdict: "allow" as const } : readHookAnswer(parsed.value);
          if (answer.verdict === "block") answer.reason ??= "blocked by the webhook's answer";
          return { ...answer, exitCode: response.status, stdout: response.body };
        } catch (error) {
          const e = error as HookHttpError;
          return { failure: e.message || `request to ${normalizeHost(url.hostname)} failed`, timedOut: e.timedOut === true };
        }
      },
    },
  };
}
