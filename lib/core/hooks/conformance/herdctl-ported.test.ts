/**
 * herdctl's own hook tests, ported case by case (edspencer/herdctl, packages/core/src/hooks/__tests__/:
 * shell-runner, hook-executor, webhook-runner, slack-runner and discord-runner .test.ts). Each
 * scenario is written anew and driven through Hookplane's public seams: the hooks come from
 * `importConfig("herdctl", …)` (so they carry herdctl's runtime contract) and run through
 * `createHookRuntime().dispatch`. Test titles cite `<file> › <herdctl test name>`; where Hookplane
 * deliberately differs, the test asserts the difference docs/dialect-semantics.md explains.
 */
import { afterEach, describe, expect, it } from "vitest";
import { importConfig } from "@/lib/core/dialects";
import { createHookRuntime } from "../runtime";
import type { HookRuntimeOptions, RuntimeHook } from "../runtime-types";
import { hookSpecSchema } from "../spec";
import { closedPort, event, json, startServer, type LocalServer } from "../testing/fakes";

const servers: LocalServer[] = [];
async function server(handle: Parameters<typeof startServer>[0]) {
  const s = await startServer(handle);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  delete process.env.HERD_PORTED_VAR;
});

const SECRETS: Record<string, { value: string; hosts: string[] }> = {
  API_TOKEN: { value: "tok-1234567", hosts: ["127.0.0.1"] },
  API_KEY: { value: "key-7654321", hosts: ["127.0.0.1"] },
  SLACK_BOT_TOKEN: { value: "xoxb-slack-123", hosts: ["127.0.0.1"] },
  DISCORD_BOT_TOKEN: { value: "discord-bot-456", hosts: ["127.0.0.1"] },
  MY_DISCORD_TOKEN: { value: "custom-bot-789", hosts: ["127.0.0.1"] },
};
const runtime = (extra: HookRuntimeOptions = {}) =>
  createHookRuntime({ allowCodeExecution: true, secrets: { get: (n) => SECRETS[n] }, outbound: { allowPrivateHosts: ["127.0.0.1"] }, ...extra });

/** herdctl agent YAML → the hooks Hookplane runs (parsed as stored). */
function herdctlHooks(yaml: string): RuntimeHook[] {
  const { hooks } = importConfig("herdctl", `name: daily-reporter\n${yaml}`);
  return hooks.map((h) => hookSpecSchema.parse(h));
}
const afterRun = (hookYaml: string) => herdctlHooks(`hooks:\n  after_run:\n${indent(hookYaml, 4)}`);
const onError = (hookYaml: string) => herdctlHooks(`hooks:\n  on_error:\n${indent(hookYaml, 4)}`);
function indent(text: string, n: number) {
  return text
    .trim()
    .split("\n")
    .map((l) => " ".repeat(n) + l)
    .join("\n");
}

/** herdctl's completed job: job-2024-01-15-abc123, 5 m 30 s, schedule morning-run. */
const job = (outcome: string, extra: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) =>
  event(
    "session.end",
    { outcome, response: "Daily report generated successfully", durationMs: 330_000, ...extra },
    { runId: "job-2024-01-15-abc123", agentName: "daily-reporter", scheduleId: "morning-run", ...fields },
  );
const failed = job("failed", { reason: "Connection refused" });

describe("herdctl shell-runner.test.ts", () => {
  const rt = runtime();

  it("shell-runner › should execute a simple shell command successfully", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: echo hello`), job("completed"));
    expect(result.ledger[0]).toMatchObject({ matched: true, verdict: "allow", failed: false, exitCode: 0, stdout: "hello\n" });
  });

  it("shell-runner › should pass hook context as JSON on stdin (event is the outcome, job has startedAt)", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: cat`), job("completed"));
    const context = JSON.parse(result.ledger[0].stdout!);
    expect(context).toMatchObject({
      event: "completed",
      job: {
        id: "job-2024-01-15-abc123",
        agentId: "daily-reporter",
        scheduleName: "morning-run",
        startedAt: "2024-01-15T09:00:00.000Z",
        completedAt: "2024-01-15T09:05:30.000Z",
        durationMs: 330_000,
      },
      result: { success: true, output: "Daily report generated successfully" },
      agent: { id: "daily-reporter", name: "daily-reporter" },
    });
  });

  it("shell-runner › should handle command failure with non-zero exit code", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: exit 1`), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, exitCode: 1, reason: "the command exited with code 1 (onFailure: continue)" });
    expect(result.verdict).toBe("allow");
  });

  it("shell-runner › should capture stderr on failure", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: "echo 'error message' >&2; exit 1"`), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, stderr: "error message\n", reason: "the command exited with code 1: error message (onFailure: continue)" });
  });

  it("shell-runner › should handle command not found", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: nonexistent-command-xyz-123`), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, exitCode: 127, reason: "command not found: nonexistent-command-xyz-123 (onFailure: continue)" });
  });

  it("shell-runner › should use default timeout when not specified (30 s)", () => {
    expect(afterRun(`- type: shell\n  command: echo hi`)[0]).toMatchObject({ timeoutMs: 30_000, dialect: "herdctl" });
  });

  it("shell-runner › should handle commands with pipes", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: "cat | jq -r .event"`), job("completed"));
    expect(result.ledger[0].stdout).toBe("completed\n");
  });

  it("shell-runner › should pass environment variables to the command — differs: only the admin's pass-through list", async () => {
    process.env.HERD_PORTED_VAR = "from-the-server";
    const hooks = afterRun(`- type: shell\n  command: 'echo "[$HERD_PORTED_VAR]"'`);
    // herdctl hands the shell its whole environment; Hookplane hands none of it by default...
    expect((await rt.dispatch(hooks, job("completed"))).ledger[0].stdout).toBe("[]\n");
    // ...only what the admin lists in HOOKPLANE_HOOK_ENV_PASSTHROUGH (the runtime's passEnv).
    expect((await runtime({ passEnv: ["HERD_PORTED_VAR"], environment: process.env }).dispatch(hooks, job("completed"))).ledger[0].stdout).toBe("[from-the-server]\n");
  });

  it("shell-runner › should handle failed event context", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: "jq -c '{event, success: .result.success, error: .result.error}'"`), failed);
    expect(JSON.parse(result.ledger[0].stdout!)).toEqual({ event: "failed", success: false, error: "Connection refused" });
  });

  it("shell-runner › should measure execution duration", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: "true"`), job("completed"));
    expect(result.ledger[0].durationMs).toEqual(expect.any(Number));
    expect(result.ledger[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it("shell-runner › should handle multiline output", async () => {
    const result = await rt.dispatch(afterRun(`- type: shell\n  command: "printf 'line1\\\\nline2\\\\nline3\\\\n'"`), job("completed"));
    expect(result.ledger[0].stdout).toBe("line1\nline2\nline3\n");
  });
});

describe("herdctl hook-executor.test.ts", () => {
  const rt = runtime();

  it("hook-executor › should return success when no hooks are configured / hook list is empty", async () => {
    const result = await rt.dispatch(herdctlHooks(""), job("completed"));
    expect(result).toMatchObject({ verdict: "allow", ledger: [] });
  });

  it("hook-executor › should execute multiple hooks sequentially", async () => {
    const hooks = afterRun(`- type: shell\n  command: echo first\n- type: shell\n  command: echo second`);
    const result = await rt.dispatch(hooks, job("completed"));
    expect(result.ledger.map((e) => e.stdout)).toEqual(["first\n", "second\n"]);
  });

  it("hook-executor › should filter hooks by on_events / run hooks without on_events for all events", async () => {
    const hooks = afterRun(`- type: shell\n  command: echo ok\n  on_events: [completed]\n- type: shell\n  command: echo any`);
    const ok = await rt.dispatch(hooks, job("completed"));
    const bad = await rt.dispatch(hooks, failed);
    expect(ok.ledger.map((e) => e.matched)).toEqual([true, true]);
    expect(bad.ledger.map((e) => [e.matched, e.reason])).toEqual([
      [false, "outcome failed not in onOutcomes [completed]"],
      [true, undefined],
    ]);
  });

  it("hook-executor › should execute on_error hooks for failed events", async () => {
    const hooks = onError(`- type: shell\n  command: 'jq -r .event; echo "$ERROR_MSG"'`);
    const result = await rt.dispatch(hooks, event("error", { message: "Connection refused" }, { agentName: "daily-reporter" }));
    expect(result.ledger[0].stdout).toBe("failed\nConnection refused\n");
  });

  it("hook-executor › should handle timeout / cancelled event types", async () => {
    const hooks = afterRun(`- type: shell\n  command: jq -r .event`);
    expect((await rt.dispatch(hooks, job("timeout"))).ledger[0].stdout).toBe("timeout\n");
    expect((await rt.dispatch(hooks, job("cancelled"))).ledger[0].stdout).toBe("cancelled\n");
  });

  it("hook-executor › should execute discord hooks (fails with missing token)", async () => {
    const hooks = afterRun(`- type: discord\n  channel_id: "123"\n  bot_token_env: NOT_SET_TOKEN`);
    const result = await rt.dispatch(hooks, job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, reason: "secret NOT_SET_TOKEN is not set (onFailure: continue)" });
  });

  it("hook-executor › should set shouldFailJob=true when continue_on_error=false — differs: the chain stops, the run's outcome stands", async () => {
    const hooks = afterRun(`- type: shell\n  command: exit 1\n  continue_on_error: false\n- type: shell\n  command: echo next`);
    const result = await rt.dispatch(hooks, job("completed"));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ failed: true, verdict: "block", ignored: true });
    expect(result.ledger[1]).toMatchObject({ matched: false, reason: expect.stringContaining("onFailure stops the chain") });
  });

  it("hook-executor › US5: should NOT execute on_error hooks for completed (success) or timeout events", async () => {
    // on_error hooks bind to the error event, which fires only for a failure, never for session.end.
    const hooks = onError(`- type: shell\n  command: echo escalate`);
    for (const outcome of ["completed", "timeout"]) {
      expect((await rt.dispatch(hooks, job(outcome))).ledger).toEqual([]);
    }
  });

  it("hook-executor › US5: after_run hooks run for completed and failed events; on_events escalates only errors", async () => {
    const hooks = herdctlHooks(
      `hooks:\n  after_run:\n    - type: shell\n      command: echo log\n    - type: shell\n      command: echo page\n      on_events: [failed]\n  on_error:\n    - type: shell\n      command: echo escalate`,
    );
    const ok = await rt.dispatch(hooks, job("completed"));
    expect(ok.ledger.map((e) => e.stdout ?? null)).toEqual(["log\n", null]);
    const bad = await rt.dispatch(hooks, failed);
    expect(bad.ledger.map((e) => e.stdout)).toEqual(["log\n", "page\n"]);
    const error = await rt.dispatch(hooks, event("error", { message: "boom" }, { agentName: "daily-reporter" }));
    expect(error.ledger.map((e) => e.stdout)).toEqual(["escalate\n"]);
  });
});

describe("herdctl webhook-runner.test.ts", () => {
  const rt = runtime();
  const hookAt = (url: string, extra = "") => afterRun(`- type: webhook\n  url: ${url}${extra}`);

  it("webhook-runner › should POST to the webhook URL successfully, with the complete HookContext in the body", async () => {
    const s = await server((_req, res) => json(res, 200, { received: true }));
    const result = await rt.dispatch(hookAt(`${s.url}/hook`), job("completed"));
    expect(result.ledger[0]).toMatchObject({ verdict: "allow", failed: false, exitCode: 200 });
    expect(s.requests[0]).toMatchObject({ method: "POST", url: "/hook" });
    expect(s.requests[0].headers["content-type"]).toBe("application/json");
    const body = JSON.parse(s.requests[0].body);
    expect(body).toMatchObject({
      event: "completed",
      job: { id: "job-2024-01-15-abc123", agentId: "daily-reporter", scheduleName: "morning-run", startedAt: "2024-01-15T09:00:00.000Z", durationMs: 330_000 },
      result: { success: true, output: "Daily report generated successfully" },
      agent: { id: "daily-reporter", name: "daily-reporter" },
    });
  });

  it("webhook-runner › should use PUT method when configured", async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    await rt.dispatch(hookAt(s.url, "\n  method: PUT"), job("completed"));
    expect(s.requests[0].method).toBe("PUT");
  });

  it("webhook-runner › should include custom headers / substitute environment variables in headers (as secrets)", async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const hooks = hookAt(s.url, `\n  headers:\n    X-Custom: custom-value\n    Authorization: "Bearer \${API_TOKEN}"\n    X-Both: "\${API_TOKEN}:\${API_KEY}"`);
    await rt.dispatch(hooks, job("completed"));
    expect(s.requests[0].headers).toMatchObject({ "x-custom": "custom-value", authorization: "Bearer tok-1234567", "x-both": "tok-1234567:key-7654321" });
  });

  it("webhook-runner › should replace undefined env vars with empty string", async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    await rt.dispatch(hookAt(s.url, `\n  headers:\n    Authorization: "Bearer \${UNDEFINED_TOKEN_VAR}"`), job("completed"));
    expect(s.requests[0].headers.authorization).toBe("Bearer");
  });

  it("webhook-runner › should handle HTTP error responses (5xx) and 4xx client errors", async () => {
    for (const status of [500, 404]) {
      const s = await server((_req, res) => json(res, status, { error: "nope" }));
      const result = await rt.dispatch(hookAt(s.url), job("completed"));
      expect(result.ledger[0]).toMatchObject({ failed: true, exitCode: status, reason: `HTTP ${status} from the webhook (onFailure: continue)` });
    }
  });

  it("webhook-runner › should handle network errors", async () => {
    const result = await rt.dispatch(hookAt(`http://127.0.0.1:${await closedPort()}/`), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, timedOut: false });
  });

  it("webhook-runner › should handle timeout", async () => {
    const s = await server(() => {}); // never answers
    const result = await rt.dispatch(hookAt(s.url, "\n  timeout: 100"), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, timedOut: true });
  });

  it("webhook-runner › should use default timeout when not specified (10 s)", () => {
    expect(hookAt("https://example.com/x")[0]).toMatchObject({ timeoutMs: 10_000 });
  });

  it("webhook-runner › should accept 2xx status codes as success", async () => {
    for (const status of [200, 201, 204]) {
      const s = await server((_req, res) => {
        res.writeHead(status);
        res.end();
      });
      expect((await rt.dispatch(hookAt(s.url), job("completed"))).ledger[0]).toMatchObject({ failed: false, exitCode: status });
    }
  });

  it("webhook-runner › should handle failed event context", async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    await rt.dispatch(hookAt(s.url), failed);
    expect(JSON.parse(s.requests[0].body)).toMatchObject({ event: "failed", result: { success: false, error: "Connection refused" } });
  });
});

/** A Slack API stand-in answering `answer`, and the hooks pointing at it. */
async function slack(answer: (res: import("node:http").ServerResponse) => void) {
  const s = await server((_req, res) => answer(res));
  return { s, rt: runtime({ slackBaseUrl: s.url }) };
}

describe("herdctl slack-runner.test.ts", () => {
  const slackHook = (extra = "") => afterRun(`- type: slack\n  channel_id: C0123456789${extra}`);

  it("slack-runner › should POST to Slack API successfully, with the channel in the payload", async () => {
    const { s, rt } = await slack((res) => json(res, 200, { ok: true, ts: "1234.5678" }));
    const result = await rt.dispatch(slackHook(), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: false, verdict: "allow" });
    expect(s.requests[0]).toMatchObject({ method: "POST", url: "/chat.postMessage" });
    expect(s.requests[0].headers.authorization).toBe("Bearer xoxb-slack-123");
    const body = JSON.parse(s.requests[0].body);
    expect(body.channel).toBe("C0123456789");
    expect(body.attachments[0]).toMatchObject({ title: "Job Completed", color: "#22c55e", footer: "herdctl", text: "Daily report generated successfully" });
    expect(body.attachments[0].fields.map((f: { title: string }) => f.title)).toEqual(["Agent", "Job ID", "Duration", "Schedule"]);
    expect(body.attachments[0].fields[2].value).toBe("5m 30s");
  });

  it("slack-runner › should fail when token env var is not set", async () => {
    const { rt } = await slack((res) => json(res, 200, { ok: true }));
    const result = await rt.dispatch(slackHook("\n  bot_token_env: MISSING_SLACK"), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, reason: "secret MISSING_SLACK is not set (onFailure: continue)" });
  });

  it("slack-runner › should use default bot_token_env when not specified", () => {
    expect(slackHook()[0].action).toMatchObject({ type: "slack", tokenSecret: "SLACK_BOT_TOKEN" });
  });

  it("slack-runner › should handle Slack API error (ok: false)", async () => {
    const { rt } = await slack((res) => json(res, 200, { ok: false, error: "channel_not_found" }));
    const result = await rt.dispatch(slackHook(), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, reason: "Slack refused the message: channel_not_found (onFailure: continue)" });
  });

  it("slack-runner › should handle HTTP errors", async () => {
    const { rt } = await slack((res) => json(res, 500, { error: "internal" }));
    expect((await rt.dispatch(slackHook(), job("completed"))).ledger[0]).toMatchObject({ failed: true, exitCode: 500 });
  });

  it("slack-runner › should handle network errors", async () => {
    const rt = runtime({ slackBaseUrl: `http://127.0.0.1:${await closedPort()}` });
    expect((await rt.dispatch(slackHook(), job("completed"))).ledger[0]).toMatchObject({ failed: true });
  });

  it("slack-runner › should include error in attachment for failed events", async () => {
    const { s, rt } = await slack((res) => json(res, 200, { ok: true }));
    await rt.dispatch(slackHook(), failed);
    const attachment = JSON.parse(s.requests[0].body).attachments[0];
    expect(attachment).toMatchObject({ title: "Job Failed", color: "#ef4444" });
    expect(attachment.fields).toContainEqual({ title: "Error", value: "```Connection refused```", short: false });
  });

  it("slack-runner › should include metadata in attachment when present", async () => {
    const { s, rt } = await slack((res) => json(res, 200, { ok: true }));
    await rt.dispatch(slackHook(), job("completed", {}, { metadata: { retailer: "Staples" } }));
    const fields = JSON.parse(s.requests[0].body).attachments[0].fields;
    expect(fields).toContainEqual({ title: "Metadata", value: '```{\n  "retailer": "Staples"\n}```', short: false });
  });

  it("slack-runner › should handle invalid JSON response", async () => {
    const { rt } = await slack((res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>not json</html>");
    });
    expect((await rt.dispatch(slackHook(), job("completed"))).ledger[0]).toMatchObject({ failed: true, reason: "Slack's answer is not JSON (onFailure: continue)" });
  });

  it("slack-runner › should handle different event types", async () => {
    const { s, rt } = await slack((res) => json(res, 200, { ok: true }));
    for (const outcome of ["completed", "failed", "timeout", "cancelled"]) await rt.dispatch(slackHook(), job(outcome));
    expect(s.requests.map((r) => JSON.parse(r.body).attachments[0].title)).toEqual(["Job Completed", "Job Failed", "Job Timed Out", "Job Cancelled"]);
  });
});

describe("herdctl discord-runner.test.ts", () => {
  const discordHook = (extra = "") => afterRun(`- type: discord\n  channel_id: "123456789"\n  bot_token_env: DISCORD_BOT_TOKEN${extra}`);
  async function discord(answer: (res: import("node:http").ServerResponse) => void = (res) => json(res, 200, { id: "m1" })) {
    const s = await server((_req, res) => answer(res));
    return { s, rt: runtime({ discordBaseUrl: s.url }) };
  }
  const embedOf = (s: LocalServer, i = 0) => JSON.parse(s.requests[i].body).embeds[0];

  it("discord-runner › should POST to Discord API successfully", async () => {
    const { s, rt } = await discord();
    expect((await rt.dispatch(discordHook(), job("completed"))).ledger[0]).toMatchObject({ failed: false });
    expect(s.requests[0]).toMatchObject({ method: "POST", url: "/channels/123456789/messages" });
    expect(s.requests[0].headers.authorization).toBe("Bot discord-bot-456");
  });

  it("discord-runner › should include correct embed structure in request body", async () => {
    const { s, rt } = await discord();
    await rt.dispatch(discordHook(), job("completed"));
    expect(embedOf(s)).toEqual({
      title: "✅ Job Completed",
      description: "Daily report generated successfully",
      color: 0x22c55e,
      fields: [
        { name: "Agent", value: "daily-reporter", inline: true },
        { name: "Job ID", value: "`job-2024-01-15-abc123`", inline: true },
        { name: "Duration", value: "5m 30s", inline: true },
        { name: "Schedule", value: "morning-run", inline: true },
      ],
      timestamp: "2024-01-15T09:05:30.000Z",
      footer: { text: "herdctl" },
    });
  });

  it("discord-runner › should use red / amber / gray colors for failed / timeout / cancelled events", async () => {
    const { s, rt } = await discord();
    for (const outcome of ["failed", "timeout", "cancelled"]) await rt.dispatch(discordHook(), job(outcome));
    expect([0, 1, 2].map((i) => embedOf(s, i).color)).toEqual([0xef4444, 0xf59e0b, 0x6b7280]);
    expect(embedOf(s, 0).title).toBe("❌ Job Failed");
  });

  it("discord-runner › the error text goes in an Error field of a failed job's embed", async () => {
    const { s, rt } = await discord();
    await rt.dispatch(discordHook(), failed);
    expect(embedOf(s).fields).toContainEqual({ name: "Error", value: "```\nConnection refused\n```", inline: false });
  });

  it("discord-runner › should fail if bot token env var is not set / use custom env var name for bot token", async () => {
    const { s, rt } = await discord();
    const missing = afterRun(`- type: discord\n  channel_id: "1"\n  bot_token_env: NOPE_TOKEN`);
    expect((await rt.dispatch(missing, job("completed"))).ledger[0]).toMatchObject({ failed: true, reason: "secret NOPE_TOKEN is not set (onFailure: continue)" });
    await rt.dispatch(afterRun(`- type: discord\n  channel_id: "1"\n  bot_token_env: MY_DISCORD_TOKEN`), job("completed"));
    expect(s.requests[0].headers.authorization).toBe("Bot custom-bot-789");
  });

  it("discord-runner › should handle Discord API error responses / invalid channel ID errors", async () => {
    const { rt } = await discord((res) => json(res, 404, { message: "Unknown Channel", code: 10003 }));
    const result = await rt.dispatch(discordHook(), job("completed"));
    expect(result.ledger[0]).toMatchObject({ failed: true, exitCode: 404, reason: expect.stringContaining("Unknown Channel") });
  });

  it("discord-runner › should handle network errors / timeout", async () => {
    const down = runtime({ discordBaseUrl: `http://127.0.0.1:${await closedPort()}` });
    expect((await down.dispatch(discordHook(), job("completed"))).ledger[0]).toMatchObject({ failed: true, timedOut: false });
    const { rt } = await discord(() => {});
    expect((await rt.dispatch(discordHook("\n  timeout: 100"), job("completed"))).ledger[0]).toMatchObject({ failed: true, timedOut: true });
  });

  it("discord-runner › should truncate long output to 4096 characters in description", async () => {
    const { s, rt } = await discord();
    await rt.dispatch(discordHook(), job("completed", { response: "x".repeat(5000) }));
    const description = embedOf(s).description as string;
    expect(description).toHaveLength(4096);
    expect(description.endsWith("...")).toBe(true);
  });

  it("discord-runner › should format duration correctly for various values", async () => {
    const { s, rt } = await discord();
    const cases: [number, string][] = [
      [500, "500ms"],
      [45_000, "45s"],
      [120_000, "2m"],
      [330_000, "5m 30s"],
      [3_600_000, "1h"],
      [7_500_000, "2h 5m"],
    ];
    for (const [ms] of cases) await rt.dispatch(discordHook(), job("completed", { durationMs: ms }));
    expect(cases.map((_c, i) => embedOf(s, i).fields[2].value)).toEqual(cases.map(([, text]) => text));
  });

  it("discord-runner › should omit schedule field if not present", async () => {
    const { s, rt } = await discord();
    await rt.dispatch(discordHook(), job("completed", {}, { scheduleId: undefined }));
    expect(embedOf(s).fields.map((f: { name: string }) => f.name)).toEqual(["Agent", "Job ID", "Duration"]);
  });

  it("discord-runner › should not include description if output is empty or whitespace only", async () => {
    const { s, rt } = await discord();
    await rt.dispatch(discordHook(), job("completed", { response: "" }));
    await rt.dispatch(discordHook(), job("completed", { response: "   \n  " }));
    expect(embedOf(s, 0).description).toBeUndefined();
    expect(embedOf(s, 1).description).toBeUndefined();
  });
});
