import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startRun } from "@/lib/features/runs/run-service";
import { addAgent, createRunHarness, operator, personIn, waitForRun, type RunHarness } from "@/test/run-harness";
import { addProject } from "@/test/people";
import { getHookHealth, healthKey, listFailingHooks } from "./hook-health";
import { insertHookInvocations, listRunHookInvocations } from "./hook-invocations";

let h: RunHarness;
let notifierScope: string;
let guardScope: string;
let otherProjectId: string;
const since = () => new Date(Date.now() - 60 * 60_000);

async function runToEnd(agent: string, principal = operator) {
  const run = await startRun(h.t.db, principal, { agent, prompt: "go" });
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  // session.end's hooks are written with the run's last events; wait until they are there.
  for (let i = 0; i < 100 && !(await listRunHookInvocations(h.t.db, { runId: run.id })).some((r) => r.event === "session.end"); i++) await new Promise((r) => setTimeout(r, 50));
  return run;
}

beforeAll(async () => {
  h = await createRunHarness();
  // The demo's Slack notice: no SLACK_BOT_TOKEN secret, onFailure continue. It fails on every run
  // while the run itself completes (verdict allow): what the health must not hide.
  const notifier = await addAgent(h.t, { name: "notifier", model: "scripted", script: [{ text: "done" }] }, [
    { id: "log-output", event: "session.end", action: { type: "log", message: "{{response}}" } },
    { id: "slack-notice", event: "session.end", onFailure: "continue", action: { type: "slack", channel: "C0123456789", tokenSecret: "SLACK_BOT_TOKEN" } },
  ]);
  notifierScope = `agent:${notifier.id}`;
  const guarded = await addAgent(
    h.t,
    {
      name: "guarded",
      model: "scripted",
      tools: ["write_file"],
      script: [{ toolCalls: [{ name: "write_file", input: { path: "/srv/prod/a.yml", content: "x" } }] }, { toolCalls: [{ name: "write_file", input: { path: "ok.md", content: "x" } }] }, { text: "done" }],
    },
    [{ id: "no-prod", event: "tool.pre", matcher: "write_file", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } }],
  );
  guardScope = `agent:${guarded.id}`;
  await runToEnd("notifier");
  await runToEnd("notifier");
  await runToEnd("guarded");

  // Another project's agent with a hook of the same key: its rows are not this project's health.
  const other = await addProject(h.t.db, { slug: "health-other" });
  otherProjectId = other.id;
  const stranger = await addAgent(h.t, { name: "stranger", model: "scripted", script: [{ text: "done" }] }, [{ id: "slack-notice", event: "session.end", onFailure: "continue", action: { type: "slack", channel: "C1", tokenSecret: "SLACK_BOT_TOKEN" } }], other.id);
  await runToEnd(stranger.id, personIn("operator", { id: other.id, slug: other.slug }));
});
afterAll(async () => {
  await h.close();
});

describe("hook health from the ledger", () => {
  test("a hook that fails on every run is failing now, with its last error; a log beside it is healthy", async () => {
    const health = await getHookHealth(h.t.db, {
      projectId: operator.projectId,
      hooks: [
        { scope: notifierScope, key: "slack-notice" },
        { scope: notifierScope, key: "log-output" },
      ],
      since: since(),
    });
    expect(health.get(healthKey(notifierScope, "slack-notice"))).toMatchObject({ fired: 2, blocked: 0, failed: 2, failingNow: true, lastError: expect.stringContaining("SLACK_BOT_TOKEN") });
    expect(health.get(healthKey(notifierScope, "slack-notice"))!.lastErrorAt).toBeInstanceOf(Date);
    expect(health.get(healthKey(notifierScope, "log-output"))).toMatchObject({ fired: 2, blocked: 0, failed: 0, failingNow: false, lastError: null, lastErrorAt: null });
  });

  test("a guard counts the calls it blocked and the ones it let through; not failing", async () => {
    const health = await getHookHealth(h.t.db, { projectId: operator.projectId, hooks: [{ scope: guardScope, key: "no-prod" }], since: since() });
    expect(health.get(healthKey(guardScope, "no-prod"))).toMatchObject({ fired: 2, blocked: 1, failed: 0, failingNow: false });
  });

  test("another project's rows, another scope's hook of the same key and rows before the window are not counted", async () => {
    const strangers = await getHookHealth(h.t.db, { projectId: otherProjectId, hooks: [{ scope: notifierScope, key: "slack-notice" }], since: since() });
    expect(strangers.size).toBe(0);
    const mine = await getHookHealth(h.t.db, { projectId: operator.projectId, hooks: [{ scope: guardScope, key: "slack-notice" }], since: since() });
    expect(mine.size).toBe(0);
    const later = await getHookHealth(h.t.db, { projectId: operator.projectId, hooks: [{ scope: notifierScope, key: "slack-notice" }], since: new Date(Date.now() + 60_000) });
    expect(later.size).toBe(0);
    expect((await getHookHealth(h.t.db, { projectId: operator.projectId, hooks: [], since: since() })).size).toBe(0);
  });

  test("a hook that failed once and then ran fine has failures but is not failing now", async () => {
    const base = { projectId: operator.projectId, event: "session.end", hookKey: "flaky", scope: "global", action: "webhook", mode: "enforce" };
    await insertHookInvocations(h.t.db, { rows: [{ ...base, matched: true, verdict: "allow", failed: true, reason: "connection refused" }] });
    await insertHookInvocations(h.t.db, { rows: [{ ...base, matched: true, verdict: "allow" }] });
    const health = await getHookHealth(h.t.db, { projectId: operator.projectId, hooks: [{ scope: "global", key: "flaky" }], since: since() });
    expect(health.get(healthKey("global", "flaky"))).toMatchObject({ fired: 2, failed: 1, failingNow: false, lastError: "connection refused" });
  });

  test("the failing hooks of a project, most failures first, with a link to the hook that still exists", async () => {
    const failing = await listFailingHooks(h.t.db, { projectId: operator.projectId, since: since(), limit: 10 });
    expect(failing.map((f) => [f.hookKey, f.failed])).toEqual([
      ["slack-notice", 2],
      ["flaky", 1],
    ]);
    expect(failing[0]).toMatchObject({ scope: notifierScope, hookId: expect.any(String), lastError: expect.stringContaining("SLACK_BOT_TOKEN") });
    // "flaky" was never a stored hook: listed, without a link.
    expect(failing[1].hookId).toBeNull();
    const other = await listFailingHooks(h.t.db, { projectId: otherProjectId, since: since(), limit: 10 });
    expect(other.map((f) => f.hookKey)).toEqual(["slack-notice"]);
    expect(other[0].hookId).not.toBe(failing[0].hookId);
  });
});
