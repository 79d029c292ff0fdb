import { describe, expect, it } from "vitest";
import type { ApprovalAnswer, ApprovalPort } from "../approval-port";
import { createMemoryRateLimitPort } from "../ports";
import type { SuspendPoint } from "../runtime-types";
import { hookSpecSchema } from "../spec";
import { createHookRuntime } from "../runtime";
import { hook, toolPre } from "../testing/fakes";
import { windowText } from "./limit";

const alice = { key: "user:alice", label: "alice@example.com", role: "operator" };
const bob = { key: "user:bob", label: "bob@example.com", role: "operator" };
const limit = (per: "actor" | "session" | "agent", extra: Record<string, unknown> = {}) =>
  hook({ id: "bash-limit", event: "tool.pre", matcher: "Bash", action: { type: "limit", max: 3, windowMs: 60_000, per, ...extra } });

describe("limit", () => {
  it("lets max calls through per person in the window, refuses the rest naming the count, and counts only what it let through", async () => {
    let now = 1_000_000;
    const runtime = createHookRuntime({ limits: createMemoryRateLimitPort(() => now) });
    const call = (actor: typeof alice, runId = "run-1") => runtime.dispatch([limit("actor")], toolPre("Bash", { command: "ls" }, { actor, runId }));
    // One person's calls across two sessions count together.
    const verdicts = [];
    for (const runId of ["run-1", "run-2", "run-1", "run-2", "run-1"]) verdicts.push((await call(alice, runId)).verdict);
    expect(verdicts).toEqual(["allow", "allow", "allow", "block", "block"]);
    const refused = await call(alice);
    expect(refused.reason).toBe("Rate limit: 3 calls per 1 min for alice@example.com (3 already in the last 1 min)");
    expect(refused.ledger[0]).toMatchObject({ hookId: "bash-limit", verdict: "block", matched: true });
    // Another person has a window of their own.
    expect((await call(bob)).verdict).toBe("allow");
    // The window slides: a minute after the first calls, they no longer count (refusals never did).
    now += 60_001;
    expect((await call(alice)).verdict).toBe("allow");
    expect((await call(alice)).ledger[0].reason).toBe("2 of 3 in 1 min for alice@example.com");
  });

  it("a call a later hook blocks is given back: only calls that went through count, a shadow block and an allowed call keep theirs", async () => {
    const runtime = createHookRuntime({ limits: createMemoryRateLimitPort() });
    const guard = (extra: Record<string, unknown> = {}) =>
      hook({ id: "no-prod", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" }, ...extra });
    const call = (command: string, chain = [limit("actor"), guard()]) => runtime.dispatch(chain, toolPre("Bash", { command }, { actor: alice }));
    // Ten calls at prod, each counted by the limit, then blocked by the guard after it: none uses the budget.
    for (let i = 0; i < 10; i++) {
      const refused = await call("ls /srv/prod");
      expect(refused).toMatchObject({ verdict: "block", blockedBy: "no-prod" });
      expect(refused.ledger[0]).toMatchObject({ hookId: "bash-limit", verdict: "allow", reason: "1 of 3 in 1 min for alice@example.com (given back: the call did not go through)" });
    }
    // The three calls that go through are the ones that count.
    expect((await call("ls")).ledger[0].reason).toBe("1 of 3 in 1 min for alice@example.com");
    // A guard in shadow blocks nothing: that call went through and keeps its token.
    expect((await call("ls /srv/prod", [limit("actor"), guard({ mode: "shadow" })])).verdict).toBe("allow");
    expect((await call("ls")).ledger[0].reason).toBe("3 of 3 in 1 min for alice@example.com");
    expect((await call("ls")).verdict).toBe("block");
  });

  it("a call the chain let through gives its token back once when its caller says it did not go through", async () => {
    const runtime = createHookRuntime({ limits: createMemoryRateLimitPort() });
    const call = () => runtime.dispatch([limit("actor")], toolPre("Bash", { command: "ls" }, { actor: alice }));
    const first = await call();
    expect(first.verdict).toBe("allow");
    first.giveBack!();
    first.giveBack!();
    expect((await call()).ledger[0].reason).toBe("1 of 3 in 1 min for alice@example.com");
    // A refusal spent nothing: nothing to give back.
    await call();
    await call();
    expect((await call()).giveBack).toBeUndefined();
  });

  it("a call that waited for a person in a run that suspended gives its token back when the resumed chain does not let it through", async () => {
    // The port parks the first ask (the run suspends); the resumed dispatch hears the decision.
    const decisions: ApprovalAnswer[] = [];
    const port: ApprovalPort = { request: async () => decisions.shift() ?? { pending: true, approvalId: "ap-1" } };
    const runtime = createHookRuntime({ limits: createMemoryRateLimitPort(), approvals: port });
    const approve = hook({ id: "ask-lead", event: "tool.pre", matcher: "Bash", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } });
    const chain = [limit("actor"), approve];
    const call = (opts?: { resume: SuspendPoint; abandon?: string }) => runtime.dispatch(chain, toolPre("Bash", { command: "deploy" }, { actor: alice }), opts);
    const count = async () => {
      // What a fresh call is counted as, given back at once so it changes nothing.
      const probe = await runtime.dispatch([limit("actor")], toolPre("Bash", { command: "ls" }, { actor: alice }));
      probe.giveBack?.();
      return probe.ledger[0].reason;
    };

    const waiting = await call();
    expect(waiting.verdict).toBe("suspend");
    expect(waiting.suspended).toMatchObject({ hookId: "ask-lead", approvalId: "ap-1", spent: [{ key: "global/bash-limit/user:alice", max: 3, windowMs: 60_000 }] });
    expect(waiting.ledger.map((r) => [r.hookId, r.reason])).toEqual([["bash-limit", "1 of 3 in 1 min for alice@example.com"]]);
    // While it waits, the call holds its token.
    expect(await count()).toBe("2 of 3 in 1 min for alice@example.com");
    // Denied (the point travels as JSON, as in a run's checkpoint): the token goes back, and the waiting hook's row says so.
    const point = JSON.parse(JSON.stringify(waiting.suspended)) as SuspendPoint;
    decisions.push({ decision: "deny", reason: "not today", timedOut: false });
    const denied = await call({ resume: point });
    expect(denied.verdict).toBe("block");
    expect(denied.ledger.map((r) => [r.hookId, r.verdict])).toEqual([["ask-lead", "block"]]);
    expect(denied.ledger[0].reason).toMatch(/\(given back: the limit token this call spent before it waited\)$/);
    expect(await count()).toBe("1 of 3 in 1 min for alice@example.com");

    // Approved: the call went through and keeps its token.
    const again = await call();
    decisions.push({ decision: "approve", timedOut: false });
    const approved = await call({ resume: JSON.parse(JSON.stringify(again.suspended)) as SuspendPoint });
    expect(approved.verdict).toBe("allow");
    expect(approved.ledger[0].reason ?? "").not.toContain("given back");
    expect(await count()).toBe("2 of 3 in 1 min for alice@example.com");

    // Abandoned (the run ended while it waited): given back.
    const left = await call();
    const abandoned = await call({ resume: JSON.parse(JSON.stringify(left.suspended)) as SuspendPoint, abandon: "the run was cancelled" });
    expect(abandoned.ledger[0].reason).toContain("given back: the limit token");
    expect(await count()).toBe("2 of 3 in 1 min for alice@example.com");

    // The waiting hook edited away while the run waited: the chain runs again and counts the call
    // again, so what the first pass spent goes back first (counted once, not twice).
    const edited = await call();
    const rerun = await runtime.dispatch([limit("actor")], toolPre("Bash", { command: "deploy" }, { actor: alice }), { resume: edited.suspended as SuspendPoint });
    expect(rerun.ledger[0].reason).toBe("2 of 3 in 1 min for alice@example.com"); // the approved call and this one
  });

  it("per session and per agent count their own subjects; a run with no person counts per session", async () => {
    const runtime = createHookRuntime({ limits: createMemoryRateLimitPort() });
    const dispatch = (per: "session" | "agent" | "actor", runId: string, actor?: typeof alice) =>
      runtime.dispatch([limit(per)], toolPre("Bash", { command: "ls" }, { runId, agentId: "agent-1", ...(actor && { actor }) }));
    for (let i = 0; i < 3; i++) expect((await dispatch("session", "s-1", alice)).verdict).toBe("allow");
    expect((await dispatch("session", "s-1", bob)).verdict).toBe("block");
    expect((await dispatch("session", "s-2", alice)).verdict).toBe("allow");
    for (let i = 0; i < 3; i++) expect((await dispatch("agent", `a-${i}`, i % 2 ? alice : bob)).verdict).toBe("allow");
    expect((await dispatch("agent", "a-9", alice)).reason).toContain("for agent price-checker");
    for (let i = 0; i < 3; i++) expect((await dispatch("actor", "headless")).verdict).toBe("allow");
    expect((await dispatch("actor", "headless")).reason).toContain("for this session");
  });

  it("in shadow mode it records what it would refuse and lets the call through; without a counter it fails closed", async () => {
    const runtime = createHookRuntime({ limits: createMemoryRateLimitPort() });
    const shadow = hook({ id: "shadow-limit", event: "tool.pre", mode: "shadow", action: { type: "limit", max: 1, windowMs: 60_000 } });
    expect((await runtime.dispatch([shadow], toolPre("Bash", {}, { actor: alice }))).verdict).toBe("allow");
    const second = await runtime.dispatch([shadow], toolPre("Bash", {}, { actor: alice }));
    expect(second.verdict).toBe("allow");
    expect(second.ledger[0]).toMatchObject({ mode: "shadow", verdict: "block" });
    const uncounted = await createHookRuntime().dispatch([limit("actor")], toolPre("Bash", {}, { actor: alice }));
    expect(uncounted.verdict).toBe("block");
    expect(uncounted.ledger[0]).toMatchObject({ failed: true });
  });

  it("a take the port answers from what it holds runs in step with the chain (no wait): same verdicts, counts and ledger; the rest ask", async () => {
    const asked: string[] = [];
    const counts = new Map<string, number>();
    let holding = true;
    const count = (key: string, max: number) => {
      const n = counts.get(key) ?? 0;
      if (n >= max) return { allowed: false, count: n };
      counts.set(key, n + 1);
      return { allowed: true, count: n + 1 };
    };
    const runtime = createHookRuntime({
      limits: {
        async take({ key, max }) {
          asked.push(key);
          return count(key, max);
        },
        takeHeld: ({ key, max }) => (holding ? count(key, max) : undefined),
      },
    });
    const guard = hook({ id: "guard", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } });
    const call = (command: string) => runtime.dispatch([limit("actor"), guard], toolPre("Bash", { command }, { actor: alice }));
    // Held: the chain's verdict is there before the dispatch's promise is awaited (nothing waited).
    let settled: string | undefined;
    const first = call("ls");
    void first.then((r) => (settled = r.verdict));
    await Promise.resolve();
    expect(settled).toBe("allow");
    expect((await first).ledger.map((r) => [r.hookId, r.verdict, r.reason])).toEqual([
      ["bash-limit", "allow", "1 of 3 in 1 min for alice@example.com"],
      ["guard", "allow", "denyIf //srv/prod/ did not match"],
    ]);
    expect((await call("cat /srv/prod/x")).ledger.map((r) => r.verdict)).toEqual(["allow", "block"]);
    expect(asked).toEqual([]);
    // Nothing held: the take asks the port, and the count goes on where it was.
    holding = false;
    expect((await call("ls")).ledger[0]).toMatchObject({ verdict: "allow", reason: "3 of 3 in 1 min for alice@example.com" });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/\/bash-limit\/user:alice$/);
    holding = true;
    const refused = await call("ls");
    expect(refused.verdict).toBe("block");
    expect(refused.reason).toBe("Rate limit: 3 calls per 1 min for alice@example.com (3 already in the last 1 min)");
  });

  it("refuses a limit that cannot work, at its field", () => {
    const issues = (action: Record<string, unknown>) =>
      hookSpecSchema.safeParse({ id: "l", event: "tool.pre", action: { type: "limit", max: 10, windowMs: 60_000, ...action } }).error?.issues.map((i) => i.path.join("."));
    expect(issues({ max: 0 })).toEqual(["action.max"]);
    expect(issues({ max: 1.5 })).toEqual(["action.max"]);
    expect(issues({ windowMs: 10 })).toEqual(["action.windowMs"]);
    expect(issues({ per: "everyone" })).toEqual(["action.per"]);
    expect(issues({ reason: "" })).toEqual(["action.reason"]);
    expect(issues({})).toBeUndefined();
  });

  it("says its window in the unit it was given", () => {
    expect([windowText(60_000), windowText(3_600_000), windowText(90_000), windowText(1_500)]).toEqual(["1 min", "1 h", "90 s", "2 s"]);
  });
});
