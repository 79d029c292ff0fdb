/**
 * `allow`: a rule that lets a call through without asking. Enforced, the approve hooks after it
 * are not asked (recorded as such); block hooks still run. In shadow it says what it would allow
 * and the approval still asks. With `input`, only that exact input (key order aside).
 */
import { describe, expect, it } from "vitest";
import { createHookRuntime } from "./runtime";
import { parseHookSpec } from "./spec";
import { approvals, hook, toolPre } from "./testing/fakes";

const approved = { decision: "approve" as const, timedOut: false, decidedBy: "alice" };

function chain(mode: "enforce" | "shadow") {
  return [
    hook({ id: "allow-ls", event: "tool.pre", matcher: "Bash", mode, action: { type: "allow", input: { command: "ls", cwd: "/w" } } }),
    hook({ id: "guard", event: "tool.pre", action: { type: "block", reason: "no rm", denyIf: "rm " } }),
    hook({ id: "ask", event: "tool.pre", action: { type: "approve" } }),
  ];
}

describe("allow rules", () => {
  it("enforced: the approval after it is not asked, the guard still runs", async () => {
    const port = approvals(approved);
    const result = await createHookRuntime({ approvals: port }).dispatch(chain("enforce"), toolPre("Bash", { cwd: "/w", command: "ls" }));
    expect(result.verdict).toBe("allow");
    expect(port.requests).toHaveLength(0);
    expect(result.ledger.map((e) => [e.hookId, e.matched, e.verdict, e.reason, e.ignored])).toEqual([
      ["allow-ls", true, "allow", "allowed by rule: the same input was approved before", false],
      ["guard", true, "allow", "denyIf /rm / did not match", false],
      ["ask", false, undefined, "not asked: hook allow-ls allows this call", false],
    ]);
  });

  it("shadow: records what it would allow, and the person is still asked", async () => {
    const port = approvals(approved);
    const result = await createHookRuntime({ approvals: port }).dispatch(chain("shadow"), toolPre("Bash", { command: "ls", cwd: "/w" }));
    expect(port.requests).toHaveLength(1);
    expect(result.ledger[0]).toMatchObject({ hookId: "allow-ls", mode: "shadow", matched: true, verdict: "allow", ignored: true, reason: "shadow: would allow without asking (allowed by rule: the same input was approved before)" });
    expect(result.ledger[2]).toMatchObject({ hookId: "ask", matched: true, verdict: "allow" });
  });

  it("another input is not this rule's, and a block is never overridden", async () => {
    const port = approvals(approved);
    const other = await createHookRuntime({ approvals: port }).dispatch(chain("enforce"), toolPre("Bash", { command: "ls -la", cwd: "/w" }));
    expect(other.ledger[0]).toMatchObject({ matched: false, reason: "the tool input is not the one this rule allows" });
    expect(port.requests).toHaveLength(1);
    const blocking = [hook({ id: "allow-all", event: "tool.pre", action: { type: "allow" } }), hook({ id: "guard", event: "tool.pre", action: { type: "block", reason: "no" } })];
    expect((await createHookRuntime().dispatch(blocking, toolPre("Bash", { command: "rm -rf /" }))).verdict).toBe("block");
  });

  it("belongs on tool.pre; approvers name someone", () => {
    const misplaced = parseHookSpec({ id: "a", event: "tool.post", action: { type: "allow" } });
    expect(misplaced.success ? [] : misplaced.error.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["action.type", "allow lets a tool call through without asking: it belongs on tool.pre, not tool.post"],
    ]);
    const empty = parseHookSpec({ id: "a", event: "tool.pre", action: { type: "approve", approvers: { users: [] } } });
    expect(empty.success ? [] : empty.error.issues.map((i) => i.path.join("."))).toEqual(["action.approvers"]);
    expect(parseHookSpec({ id: "a", event: "tool.pre", action: { type: "approve", approvers: { users: [" Alice@Example.com "], roles: ["admin"] } } })).toMatchObject({
      success: true,
      data: { action: { approvers: { users: ["alice@example.com"], roles: ["admin"] } } },
    });
  });
});
