import { describe, expect, it, test } from "vitest";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { draftFromSpec, draftIssues, draftToInput, issueFor, showsHookTimeout, unplacedIssues, visibleActionFields } from "./hook-draft";

describe("hook draft", () => {
  it("round-trips a spec of every shape through the form's text fields", () => {
    const specs = [
      { id: "no-prod", event: "tool.pre", scope: "global", matcher: "write_file", action: { type: "block", reason: "no", denyIf: "/srv/prod" } },
      { id: "ask", event: "tool.pre", action: { type: "approve", timeoutMs: 60000, onTimeout: "allow", tools: ["shell", "write_*"], message: "ok?" } },
      { id: "mem", event: "session.start", action: { type: "tool", tool: "memory", args: { action: "read", file: "x.md" }, skipIf: "^$" } },
      { id: "hook", event: "tool.post", timeoutMs: 2000, onFailure: "continue", action: { type: "webhook", url: "https://x.test", method: "PUT", headers: { a: "b" } } },
      { id: "end", event: "session.end", onOutcomes: ["failed", "timeout"], when: "metadata.shouldNotify", action: { type: "slack", channel: "C1", tokenSecret: "T" } },
      { id: "sh", event: "tool.pre", mode: "shadow", enabled: false, action: { type: "command", command: "jq -r .toolName", secrets: ["A_B"], timeoutMs: 5000 } },
      { id: "gate", event: "tool.pre", action: { type: "approve", approvers: { users: ["alice@example.com", "bob"], roles: ["admin"] } } },
      { id: "gate-roles", event: "tool.pre", action: { type: "approve", approvers: { roles: ["operator"] } } },
      { id: "allow-ls", event: "tool.pre", mode: "shadow", matcher: "Bash", action: { type: "allow", input: { command: "ls" }, reason: "fine" } },
      { id: "no-keys", event: "tool.pre", action: { type: "block", reason: "no keys", denyIf: { detects: ["secrets", "shell.destructive"], minConfidence: "high" } } },
      { id: "no-leak", event: "session.start", action: { type: "tool", tool: "memory", denyIf: { detects: ["pii"] } } },
    ];
    for (const raw of specs) {
      const spec = hookSpecSchema.parse(raw);
      expect(hookSpecSchema.parse(draftToInput(draftFromSpec(spec)).input)).toEqual(spec);
    }
  });

  it("denyIf is a regex or detectors: each in its own field, both at once refused", () => {
    const draft = draftFromSpec(hookSpecSchema.parse({ id: "no-keys", event: "tool.pre", action: { type: "block", denyIf: { detects: ["secrets"] } } }));
    expect(draft.action).toMatchObject({ denyIfDetects: "secrets", denyIfConfidence: "medium" });
    expect(draft.action.denyIf).toBeUndefined();
    draft.action.denyIfDetects = "secrets, everything";
    expect(draftIssues(draft)).toEqual({ "action.denyIf.detects[1]": expect.stringContaining('unknown detector "everything"') });
    expect(issueFor(draftIssues(draft), "action.denyIf.detects")).toContain("[1]");
    draft.action.denyIfDetects = "secrets";
    draft.action.denyIf = "/srv/prod";
    expect(draftIssues(draft)).toEqual({ "action.denyIf": "denyIf is a regex or detectors, not both: clear one" });
    draft.action.denyIfDetects = "";
    draft.action.denyIfConfidence = "";
    expect(draftToInput(draft).input.action).toEqual({ type: "block", reason: "Blocked by hook", denyIf: "/srv/prod" });
  });

  it("approvers are two list fields, their problems shown at them", () => {
    const draft = draftFromSpec(hookSpecSchema.parse({ id: "gate", event: "tool.pre", action: { type: "approve", approvers: { users: ["alice"] } } }));
    expect(draft.action).toMatchObject({ approverUsers: "alice", approverRoles: "" });
    draft.action.approverRoles = "admin, owner";
    expect(issueFor(draftIssues(draft), "action.approvers.roles")).toContain("[1]");
  });

  it("reports bad JSON, bad numbers and bad regexes at their zod paths", () => {
    const draft = draftFromSpec(undefined, { scope: "agent:x" });
    expect(draftIssues(draft)).toMatchObject({ id: expect.any(String) });
    draft.id = "guard";
    draft.action = { denyIf: "(unclosed" };
    expect(Object.keys(draftIssues(draft))).toEqual(["action.denyIf"]);
    draft.actionType = "tool";
    draft.action = { tool: "memory", args: "{oops", timeoutMs: "ten" };
    const issues = draftIssues(draft);
    expect(issues["action.args"]).toContain("not valid JSON");
    expect(issues["action.timeoutMs"]).toBeDefined();
  });

  it("keeps onOutcomes to session.end, and places nested and stray issues", () => {
    const draft = draftFromSpec({ id: "x", event: "session.end", onOutcomes: ["failed"], action: { type: "log" } });
    draft.event = "tool.post";
    expect(draftToInput(draft).input).not.toHaveProperty("onOutcomes");
    expect(issueFor({ "action.tools[1]": "too short" }, "action.tools")).toBe("[1]: too short");
    expect(unplacedIssues({ "action.url": "x", "(root)": "y" }, "block")).toEqual([
      { path: "action.url", message: "x" },
      { path: "(root)", message: "y" },
    ]);
  });

  it("keeps an imported hook's dialect (its runtime contract) and a tool hook's denyIf across an edit", () => {
    const spec = hookSpecSchema.parse({
      id: "policy",
      event: "tool.pre",
      dialect: "tailored-ai",
      action: { type: "tool", tool: "policy_check", denyIf: "BLOCK" },
    });
    const draft = draftFromSpec(spec);
    expect(draft.dialect).toBe("tailored-ai");
    draft.matcher = "exec";
    expect(draftToInput(draft).input).toMatchObject({ dialect: "tailored-ai", matcher: "exec", action: { type: "tool", tool: "policy_check", denyIf: "BLOCK" } });
    expect(draftToInput(draftFromSpec({ id: "own", event: "tool.pre", action: { type: "log" } })).input).not.toHaveProperty("dialect");
  });
});

describe("the approve action says its timeout and its tools once", () => {
  test("an approve hook's editor draws no second tool filter and no second timeout while they are empty", () => {
    const names = visibleActionFields("approve", {}).map((f) => f.name);
    expect(names).toEqual(["timeoutMs", "onTimeout", "message", "approverUsers", "approverRoles"]);
    expect(showsHookTimeout({ actionType: "approve", timeoutMs: "" })).toBe(false);
  });

  test("a hook that uses them (an import, an older hook) or has a problem there still shows them", () => {
    expect(visibleActionFields("approve", { tools: "shell" }).map((f) => f.name)).toContain("tools");
    expect(visibleActionFields("approve", {}, { "action.tools[0]": "too long" }).map((f) => f.name)).toContain("tools");
    expect(showsHookTimeout({ actionType: "approve", timeoutMs: "5000" })).toBe(true);
    expect(showsHookTimeout({ actionType: "approve", timeoutMs: "" }, { timeoutMs: "must be a number" })).toBe(true);
  });

  test("other actions keep their fields and the hook timeout", () => {
    expect(visibleActionFields("webhook", {}).map((f) => f.name)).toEqual(["url", "method", "headers", "timeoutMs"]);
    expect(showsHookTimeout({ actionType: "block", timeoutMs: "" })).toBe(true);
  });
});
