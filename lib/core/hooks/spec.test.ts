import { describe, expect, it } from "vitest";
import { hookSpecSchema, parseHookSpec } from "./spec";

const base = { id: "no-prod", event: "tool.pre", action: { type: "block", reason: "no" } };

function issues(input: unknown) {
  const parsed = hookSpecSchema.safeParse(input);
  if (parsed.success) throw new Error("expected the spec to be rejected");
  return parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

describe("hook spec", () => {
  it("applies the documented defaults", () => {
    const spec = hookSpecSchema.parse(base);
    expect(spec).toMatchObject({ scope: "global", enabled: true, mode: "enforce" });
  });

  it("suggests the nearest event name for an unknown one", () => {
    const [issue] = issues({ ...base, event: "tool.pree" });
    expect(issue.path).toBe("event");
    expect(issue.message).toContain('did you mean "tool.pre"');
  });

  it("reports a bad denyIf regex at action.denyIf", () => {
    const [issue] = issues({ ...base, action: { type: "block", denyIf: "(unclosed" } });
    expect(issue.path).toBe("action.denyIf");
    expect(issue.message).toMatch(/invalid regex: missing closing \)/);
  });

  it("rejects lookaround (not linear-time) with a reason", () => {
    const [issue] = issues({ ...base, action: { type: "block", denyIf: "(?=prod)" } });
    expect(issue.message).toContain("RE2 has no lookaround");
  });

  it("reports a bad skipIf at action.skipIf, a bad matcher at matcher, a bad when at when", () => {
    expect(issues({ ...base, action: { type: "tool", tool: "gmail", skipIf: "[a-" } })[0].path).toBe("action.skipIf");
    expect(issues({ ...base, matcher: "Write(" })[0].path).toBe("matcher");
    expect(issues({ ...base, when: "toolName: /(x/" })[0].path).toBe("when");
    expect(issues({ ...base, when: "not a path!" })[0].message).toContain("dot path");
  });

  it("rejects approve on an event that cannot wait, and onOutcomes off session.end", () => {
    const approve = parseHookSpec({ id: "a", event: "session.end", action: { type: "approve" } });
    expect(approve.success).toBe(false);
    expect(approve.error?.issues[0].path).toEqual(["action", "type"]);
    const outcomes = parseHookSpec({ ...base, onOutcomes: ["completed"] });
    expect(outcomes.error?.issues[0].path).toEqual(["onOutcomes"]);
    expect(parseHookSpec({ ...base, event: "session.end", onOutcomes: ["failed"] }).success).toBe(true);
  });

  it("stays a plain object schema others can extend and make partial", () => {
    expect(hookSpecSchema.partial().safeParse({ enabled: false }).success).toBe(true);
  });
});
