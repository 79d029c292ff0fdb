import { describe, expect, test } from "vitest";
import { chainStep, whyNotAsked, whyScopeExcludes, type ChainStep } from "./chain-rules";
import type { CompiledHook } from "./compiled-hooks";
import type { HookEvent } from "./event";
import type { HookVerdict } from "./ledger";

describe("what a hook's outcome does to the chain", () => {
  // outcome, shadow, onFailure blocks, blocking event, waived by an exception → step
  const rows: [HookVerdict | "failed", boolean, boolean, boolean, boolean, ChainStep][] = [
    ["allow", false, true, true, false, "continue"],
    ["allow", true, true, true, false, "shadow"],
    ["block", false, true, true, false, "block"],
    ["block", false, false, true, false, "block"],
    ["block", false, true, true, true, "waive"],
    ["block", true, true, true, true, "shadow"],
    ["block", true, true, true, false, "shadow"],
    ["block", false, true, false, false, "note"],
    ["block", false, true, false, true, "note"],
    ["skip", false, true, true, false, "skip"],
    ["skip", false, true, false, false, "skip"],
    ["skip", true, true, true, false, "shadow"],
    ["failed", false, false, true, false, "continue"],
    ["failed", true, false, true, false, "continue"],
    ["failed", false, true, true, false, "block"],
    ["failed", false, true, true, true, "block"],
    ["failed", true, true, true, false, "shadow"],
    ["failed", false, true, false, false, "stop"],
    ["failed", true, true, false, false, "shadow"],
  ];
  test.each(rows)("%s (shadow %s, onFailure blocks %s, blocking event %s, waived %s): %s", (outcome, shadow, failureBlocks, blocking, waived, step) => {
    expect(chainStep(outcome, shadow, failureBlocks, blocking, waived)).toBe(step);
  });
});

describe("whether an approve hook is asked", () => {
  const hook = (actionType: string, scopeKind?: string) => ({ id: "h", actionType, scopeTarget: scopeKind ? { kind: scopeKind, id: "x" } : undefined }) as unknown as CompiledHook;
  const exception = { id: "mine" } as CompiledHook;
  test.each([
    [hook("approve"), null, undefined, undefined],
    [hook("approve"), null, "open-up", "not asked: hook open-up allows this call"],
    [hook("approve"), exception, undefined, "not asked: exception mine allows this call for this person"],
    [hook("approve", "group"), exception, "open-up", "not asked: exception mine allows this call for this person"],
    // One person's approve hook is not waived by their own exception, but an allow still grants.
    [hook("approve", "person"), exception, undefined, undefined],
    [hook("approve", "person"), exception, "open-up", "not asked: hook open-up allows this call"],
    [hook("block"), exception, "open-up", undefined],
  ] as const)("%o with exception %o, granted by %s: %s", (h, ex, granted, why) => {
    expect(whyNotAsked(h, ex, granted)).toBe(why);
  });
});

describe("whether a scoped hook applies to the call", () => {
  const event = { type: "tool.pre", runId: "r", agentId: "a1", agentName: "coder", ts: 0, data: {}, flow: { id: "f1", name: "release" }, actor: { userId: "u1", label: "Ada", groups: ["eng"] } } as unknown as HookEvent;
  test.each([
    ["agent:coder", { kind: "agent", id: "coder" }, undefined],
    ["agent:a1", { kind: "agent", id: "a1" }, undefined],
    ["agent:release", { kind: "agent", id: "release" }, undefined],
    ["agent:other", { kind: "agent", id: "other" }, "scope agent:other does not apply to agent coder"],
    ["schedule:s1", { kind: "schedule", id: "s1" }, "scope schedule:s1 does not apply to a run without a schedule"],
    ["person:u1", { kind: "person", id: "u1" }, undefined],
    ["person:u2", { kind: "person", id: "u2" }, "scope person:u2 does not apply to the calls of Ada"],
    ["group:eng", { kind: "group", id: "eng" }, undefined],
    ["group:ops", { kind: "group", id: "ops" }, "scope group:ops does not apply to Ada, not in group ops"],
  ] as const)("%s: %s", (scope, target, why) => {
    expect(whyScopeExcludes(scope, target as NonNullable<CompiledHook["scopeTarget"]>, event)).toBe(why);
  });
});
