/**
 * Policy per person and its precedence (docs/hook-model.md): scopes for a single sign-on group and
 * for one person; the order instance/project, group, person, agent, schedule; deny wins, unless a
 * person's allow rule an admin marked as an exception matches the call: then the block and approve
 * hooks of every other scope are waived (and recorded as decided and waived), never a rate limit,
 * a failed hook, a guard that calls out, or the person's own deny.
 */
import { describe, expect, it } from "vitest";
import type { EventActor } from "./event";
import { createHookRuntime } from "./runtime";
import { parseHookSpec } from "./spec";
import { approvals, hook, toolPre } from "./testing/fakes";

const ALICE = "11111111-1111-4111-8111-111111111111";
const BOB = "22222222-2222-4222-8222-222222222222";
const alice: EventActor = { key: `user:${ALICE}`, userId: ALICE, label: "alice@example.com", groups: ["oncall", "eng"] };
const bob: EventActor = { key: `user:${BOB}`, userId: BOB, label: "bob@example.com", groups: ["eng"] };

const terraform = (actor?: EventActor) => toolPre("Bash", { command: "terraform apply" }, actor ? { actor } : {});
const runtime = createHookRuntime({ approvals: approvals({ decision: "approve", timedOut: false, decidedBy: "lead" }) });

describe("group and person scopes", () => {
  const chain = [
    hook({ id: "eng-context", event: "tool.pre", scope: "group:eng", action: { type: "log" } }),
    hook({ id: "bob-no-terraform", event: "tool.pre", scope: `person:${BOB}`, action: { type: "block", reason: "Bob's terraform access is revoked", denyIf: "terraform" } }),
  ];

  it("a person's rule holds for that person only; a group's for its members only; neither for a run no person sent", async () => {
    const forBob = await runtime.dispatch(chain, terraform(bob));
    expect([forBob.verdict, forBob.blockedBy]).toEqual(["block", "bob-no-terraform"]);
    const forAlice = await runtime.dispatch(chain, terraform(alice));
    expect(forAlice.verdict).toBe("allow");
    expect(forAlice.ledger.map((e) => [e.hookId, e.matched, e.reason])).toEqual([
      ["eng-context", true, "logged: tool.pre Bash"],
      ["bob-no-terraform", false, "scope person:22222222-2222-4222-8222-222222222222 does not apply to the calls of alice@example.com"],
    ]);
    const outsider = await runtime.dispatch(chain, terraform({ key: "user:x", userId: "x", label: "x@example.com" }));
    expect(outsider.ledger[0]).toMatchObject({ matched: false, reason: "scope group:eng does not apply to x@example.com, not in group eng" });
    const ownAgent = await runtime.dispatch(chain, terraform());
    expect(ownAgent.ledger.map((e) => e.reason)).toEqual(["scope group:eng does not apply to a run no person's agent sent", "scope person:22222222-2222-4222-8222-222222222222 does not apply to a run no person's agent sent"]);
  });

  it("runs in precedence order whatever the stored order: global, group, person, agent, schedule", async () => {
    const mixed = [
      hook({ id: "s", event: "tool.pre", scope: "schedule:nightly", action: { type: "log" } }),
      hook({ id: "a", event: "tool.pre", scope: "agent:price-checker", action: { type: "log" } }),
      hook({ id: "p", event: "tool.pre", scope: `person:${ALICE}`, action: { type: "log" } }),
      hook({ id: "grp", event: "tool.pre", scope: "group:oncall", action: { type: "log" } }),
      hook({ id: "g", event: "tool.pre", action: { type: "log" } }),
    ];
    const result = await runtime.dispatch(mixed, terraform(alice));
    expect(result.ledger.map((e) => e.hookId)).toEqual(["g", "grp", "p", "a", "s"]);
  });
});

describe("exceptions", () => {
  const projectDeny = hook({ id: "no-terraform", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "terraform runs from the pipeline", denyIf: "terraform" } });
  const groupDeny = hook({ id: "eng-no-apply", event: "tool.pre", scope: "group:eng", action: { type: "block", reason: "eng does not apply", denyIf: "apply" } });
  const ask = hook({ id: "ask-infra", event: "tool.pre", matcher: "Bash", action: { type: "approve", timeoutMs: 1000 } });
  const oncall = hook({
    id: "alice-oncall",
    event: "tool.pre",
    scope: `person:${ALICE}`,
    matcher: "Bash",
    exception: true,
    action: { type: "allow", reason: "Alice is on call this week" },
  });

  it("a person's exception waives the broader denies and questions for that person; everyone else is still denied", async () => {
    const port = approvals({ decision: "approve", timedOut: false, decidedBy: "lead" });
    const withPort = createHookRuntime({ approvals: port });
    const chain = [projectDeny, groupDeny, ask, oncall];
    const forAlice = await withPort.dispatch(chain, terraform(alice));
    expect(forAlice.verdict).toBe("allow");
    expect(port.requests).toHaveLength(0);
    expect(forAlice.ledger.map((e) => [e.hookId, e.verdict ?? null, e.ignored, e.reason])).toEqual([
      ["no-terraform", "block", true, "terraform runs from the pipeline (waived: exception alice-oncall allows this call for this person)"],
      ["ask-infra", null, false, "not asked: exception alice-oncall allows this call for this person"],
      ["eng-no-apply", "block", true, "eng does not apply (waived: exception alice-oncall allows this call for this person)"],
      ["alice-oncall", "allow", false, "Alice is on call this week"],
    ]);
    const forBob = await withPort.dispatch(chain, terraform(bob));
    expect([forBob.verdict, forBob.blockedBy]).toEqual(["block", "no-terraform"]);
  });

  it("an exception that does not match the call waives nothing; a shadow one records only", async () => {
    const narrow = hook({ ...oncall, id: "alice-plan-only", when: "tool_input.command: /^terraform plan/" });
    expect((await runtime.dispatch([projectDeny, narrow], terraform(alice))).verdict).toBe("block");
    const shadow = hook({ ...oncall, id: "alice-shadow", mode: "shadow" });
    const result = await runtime.dispatch([projectDeny, shadow], terraform(alice));
    expect([result.verdict, result.blockedBy]).toEqual(["block", "no-terraform"]);
  });

  it("never waives the person's own deny, a rate limit, or a guard that failed (fail closed)", async () => {
    const ownDeny = hook({ id: "alice-no-terraform", event: "tool.pre", scope: `person:${ALICE}`, action: { type: "block", reason: "not Alice", denyIf: "terraform" } });
    expect((await runtime.dispatch([oncall, ownDeny], terraform(alice))).blockedBy).toBe("alice-no-terraform");
    // A stored hook whose matcher no longer compiles: it fails, and a gate that fails blocks.
    const broken = { ...hook({ id: "broken-guard", event: "tool.pre", action: { type: "block" } }), matcher: "(" };
    const failed = await runtime.dispatch([broken, oncall], terraform(alice));
    expect([failed.verdict, failed.blockedBy]).toEqual(["block", "broken-guard"]);
    const limits = { take: async () => ({ allowed: false, count: 3 }) };
    const limited = await createHookRuntime({ limits }).dispatch(
      [hook({ id: "three-a-minute", event: "tool.pre", action: { type: "limit", max: 3, windowMs: 60_000 } }), oncall],
      terraform(alice),
    );
    expect([limited.verdict, limited.blockedBy]).toEqual(["block", "three-a-minute"]);
  });

  it("only a person's allow rule can be an exception", () => {
    const bad = (input: Record<string, unknown>) => parseHookSpec({ id: "x", event: "tool.pre", exception: true, ...input });
    expect(bad({ scope: `person:${ALICE}`, action: { type: "allow" } }).success).toBe(true);
    for (const wrong of [
      { scope: "global", action: { type: "allow" } },
      { scope: "group:eng", action: { type: "allow" } },
      { scope: `person:${ALICE}`, action: { type: "block" } },
    ]) {
      const parsed = bad(wrong);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0].path).toEqual(["exception"]);
    }
  });
});
