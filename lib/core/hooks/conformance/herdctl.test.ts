/**
 * herdctl's agent hooks as canonical specs: `after_run` = session.end, `on_error` = error,
 * `on_events` = onOutcomes, `when` = when, `continue_on_error` (default true) = onFailure
 * continue/block, shell timeout 30 s by default; the HookContext on stdin (`.result.output`,
 * `.metadata`, `.job`), and Discord/Slack notifications.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHookRuntime } from "../runtime";
import type { HookSpecInput } from "../spec";
import { event, hook, json, startServer, type LocalServer } from "../testing/fakes";

const shell = (id: string, command: string, extra: Partial<HookSpecInput> = {}) =>
  hook({ id, event: "session.end", action: { type: "command", command, timeoutMs: 30_000 }, ...extra });

const afterRun = (outcome: string, metadata: Record<string, unknown> = {}) =>
  event(
    "session.end",
    { outcome, response: "Price check complete: Staples Hyken at $159.99", durationMs: 330_000, startedAt: "2024-01-15T09:00:00.000Z" },
    { metadata, scheduleId: "check", triggerType: "schedule" },
  );

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("herdctl conformance", () => {
  const runtime = createHookRuntime({ allowCodeExecution: true, secrets: { get: () => "bot-token-xyz" } });

  it("a shell hook reads the HookContext with jq", async () => {
    const result = await runtime.dispatch([shell("log-output", "jq -r '.result.output'")], afterRun("completed"));
    expect(result.ledger[0]).toMatchObject({ verdict: "allow", exitCode: 0, stdout: "Price check complete: Staples Hyken at $159.99\n" });
  });

  it("the context has herdctl's job, agent and metadata fields", async () => {
    const result = await runtime.dispatch(
      [shell("ctx", "jq -c '{id: .job.id, sched: .job.scheduleName, ms: .job.durationMs, agent: .agent.name, ok: .result.success, notify: .metadata.shouldNotify, trig: .triggerType}'")],
      afterRun("completed", { shouldNotify: true }),
    );
    expect(JSON.parse(result.ledger[0].stdout!)).toEqual({ id: "run-1", sched: "check", ms: 330000, agent: "price-checker", ok: true, notify: true, trig: "schedule" });
  });

  it("the price-checker example prints by metadata.shouldNotify", async () => {
    const h = shell("show", `if jq -e '.metadata.shouldNotify == true' > /dev/null 2>&1; then echo "Deal found"; else echo "No deal"; fi`);
    expect((await runtime.dispatch([h], afterRun("completed", { shouldNotify: true }))).ledger[0].stdout).toBe("Deal found\n");
    expect((await runtime.dispatch([h], afterRun("completed", { shouldNotify: false }))).ledger[0].stdout).toBe("No deal\n");
  });

  it("when: metadata.shouldNotify sends the Discord alert only when the agent asked", async () => {
    server = await startServer((_req, res) => json(res, 200, { id: "m1" }));
    // The token may go only to the hosts its secret names: here the local stand-in for Discord.
    const rt = createHookRuntime({ secrets: { get: () => ({ value: "bot-token-xyz", hosts: ["127.0.0.1"] }) }, discordBaseUrl: server.url });
    const alert = hook({ id: "price-alert", event: "session.end", when: "metadata.shouldNotify", action: { type: "discord", channel: "123", tokenSecret: "DISCORD_BOT_TOKEN" } });
    const quiet = await rt.dispatch([alert], afterRun("completed", { shouldNotify: false }));
    expect(quiet.ledger[0]).toMatchObject({ matched: false, reason: "when metadata.shouldNotify is falsy" });
    expect(server.requests).toHaveLength(0);
    await rt.dispatch([alert], afterRun("completed", { shouldNotify: true, retailer: "Staples" }));
    expect(server.requests).toHaveLength(1);
    const [embed] = JSON.parse(server.requests[0].body).embeds;
    expect(embed.fields).toEqual(expect.arrayContaining([{ name: "retailer", value: "Staples", inline: true }]));
  });

  it("when: result.success and when: result.error", async () => {
    const onSuccess = shell("ci", "echo trigger", { when: "result.success" });
    const onError = shell("alert", "echo alert", { when: "result.error" });
    const ok = await runtime.dispatch([onSuccess, onError], afterRun("completed"));
    expect(ok.ledger.map((e) => e.matched)).toEqual([true, false]);
    const failed = await runtime.dispatch([onSuccess, onError], event("session.end", { outcome: "failed", reason: "provider error" }));
    expect(failed.ledger.map((e) => e.matched)).toEqual([false, true]);
  });

  it("on_events filters by outcome", async () => {
    const trigger = shell("trigger-ci", "true", { onOutcomes: ["completed"] });
    const failure = shell("failure-alert", "true", { onOutcomes: ["failed", "timeout"] });
    const timedOut = await runtime.dispatch([trigger, failure], afterRun("timeout"));
    expect(timedOut.ledger.map((e) => [e.hookId, e.matched, e.reason])).toEqual([
      ["trigger-ci", false, "outcome timeout not in onOutcomes [completed]"],
      ["failure-alert", true, undefined],
    ]);
  });

  it("on_error hooks run on the error event with ERROR_MSG", async () => {
    const page = hook({ id: "pagerduty", event: "error", action: { type: "command", command: 'echo "$ERROR_MSG"' } });
    const result = await runtime.dispatch([page], event("error", { message: "provider returned 529" }));
    expect(result.ledger[0].stdout).toBe("provider returned 529\n");
  });

  it("continue_on_error: true (default) keeps going after a failing hook", async () => {
    const result = await runtime.dispatch([shell("flaky", "exit 1"), shell("next", "echo ran")], afterRun("completed"));
    expect(result.ledger.map((e) => [e.failed, e.stdout])).toEqual([
      [true, undefined],
      [false, "ran\n"],
    ]);
    expect(result.verdict).toBe("allow");
  });

  it("continue_on_error: false stops the remaining hooks, and the job status is untouched", async () => {
    const result = await runtime.dispatch([shell("critical", "exit 1", { onFailure: "block" }), shell("next", "echo ran")], afterRun("completed"));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[1]).toMatchObject({ matched: false, reason: "not run: hook critical failed and its onFailure stops the chain" });
  });

  it("a shell hook past its timeout is stopped (SIGTERM to its group)", async () => {
    const result = await runtime.dispatch([{ ...shell("slow", "sleep 10"), action: { type: "command", command: "sleep 10", timeoutMs: 200 } }], afterRun("completed"));
    expect(result.ledger[0]).toMatchObject({ timedOut: true, reason: "timed out after 200 ms (onFailure: continue)" });
  });
});
