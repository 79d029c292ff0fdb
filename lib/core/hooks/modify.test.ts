import { describe, expect, it } from "vitest";
import { readHookAnswer } from "./hook-output";
import { applyMergePatch } from "./merge-patch";
import { sha256Of } from "./modification-record";
import { recordedToolPost, WITHHELD_OUTPUT } from "./output-redaction";
import { createHookRuntime } from "./runtime";
import { parseHookSpec } from "./spec";
import { approvals, event, hook, toolPre } from "./testing/fakes";

const patch = (id: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  hook({ id, event: "tool.pre", action: { type: "modify", input }, ...extra });
const postEvent = (output: unknown) => event("tool.post", { toolName: "Bash", toolInput: { command: "env" }, toolCallId: "call-1", output, isError: false });

describe("JSON merge patch (RFC 7396)", () => {
  it("merges keys, removes those set to null, replaces arrays and leaves the target alone", () => {
    const target = { command: "rm -rf build", env: { A: "1", B: "2" }, args: [1, 2] };
    const result = applyMergePatch(target, { command: "rm -rf ./build", env: { B: null, C: "3" }, args: [3] });
    expect(result).toEqual({ command: "rm -rf ./build", env: { A: "1", C: "3" }, args: [3] });
    expect(target).toEqual({ command: "rm -rf build", env: { A: "1", B: "2" }, args: [1, 2] });
  });
});

describe("the modify action's spec", () => {
  it("refuses an input patch off tool.pre, output off tool.post, both output and redact, and nothing at all, at the field", () => {
    const issues = (event: string, action: Record<string, unknown>) =>
      parseHookSpec({ id: "m", event, action: { type: "modify", ...action } }).error?.issues.map((i) => i.path.join("."));
    expect(issues("tool.post", { input: { command: "ls" } })).toEqual(["action.input"]);
    expect(issues("tool.pre", { output: "x" })).toEqual(["action.output"]);
    expect(issues("tool.post", { output: "x", redact: ["a"] })).toEqual(["action.redact"]);
    expect(issues("tool.pre", {})).toEqual(["action.type"]);
    expect(issues("tool.pre", { input: "not an object" })).toEqual(["action.input"]);
    expect(issues("tool.post", { redact: ["(?=lookahead)"] })).toEqual(["action.redact.0"]);
    expect(issues("tool.pre", { input: { big: "x".repeat(70_000) } })).toEqual(["action.input"]);
    expect(parseHookSpec({ id: "a", event: "tool.post", action: { type: "ask" } }).error?.issues[0].path).toEqual(["action", "type"]);
    expect(parseHookSpec({ id: "m", event: "tool.pre", action: { type: "modify", input: { command: "ls" } } }).success).toBe(true);
  });
});

describe("modifying a call before it runs", () => {
  it("applies a patch: the result carries the whole new input and the ledger keeps it before and after", async () => {
    const result = await createHookRuntime().dispatch([patch("safe-rm", { command: "rm -rf ./build" })], toolPre("Bash", { command: "rm -rf build", description: "clean" }));
    expect(result.verdict).toBe("allow");
    expect(result.toolInput).toEqual({ command: "rm -rf ./build", description: "clean" });
    expect(result.modifiedBy).toEqual(["safe-rm"]);
    expect(result.ledger[0]).toMatchObject({
      verdict: "allow",
      reason: "rewrote the tool input (command)",
      ignored: false,
      modification: { kind: "input", proposed: { command: "rm -rf build", description: "clean" }, effective: { command: "rm -rf ./build", description: "clean" }, applied: true },
    });
  });

  it("chains modifiers: each sees the input the one before it left", async () => {
    const hooks = [patch("first", { command: "npm test" }), patch("second", { timeout: 60000 }), patch("third", { timeout: null, description: "tests" })];
    const result = await createHookRuntime().dispatch(hooks, toolPre("Bash", { command: "npm t", timeout: 5 }));
    expect(result.toolInput).toEqual({ command: "npm test", description: "tests" });
    expect(result.modifiedBy).toEqual(["first", "second", "third"]);
    expect(result.ledger.map((r) => r.modification && r.modification.kind === "input" && r.modification.proposed)).toEqual([
      { command: "npm t", timeout: 5 },
      { command: "npm test", timeout: 5 },
      { command: "npm test", timeout: 60000 },
    ]);
  });

  it("a block after a modifier judges the rewritten input; a block before it stops the chain and nothing is rewritten", async () => {
    const toProd = patch("to-prod", { path: "/srv/prod/app" });
    const noProd = hook({ id: "no-prod", event: "tool.pre", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } });
    const after = await createHookRuntime().dispatch([toProd, noProd], toolPre("Write", { path: "/tmp/app" }));
    expect(after).toMatchObject({ verdict: "block", blockedBy: "no-prod", reason: "no prod" });

    const before = await createHookRuntime().dispatch([noProd, patch("rewrite", { path: "/tmp/safe" })], toolPre("Write", { path: "/srv/prod/x" }));
    expect(before.verdict).toBe("block");
    expect(before.toolInput).toBeUndefined();
    expect(before.ledger[1]).toMatchObject({ matched: false, reason: "not run: hook no-prod blocked", modification: undefined });
  });

  it("in shadow mode records what it would have written and changes nothing", async () => {
    const result = await createHookRuntime().dispatch([patch("try", { command: "ls" }, { mode: "shadow" })], toolPre("Bash", { command: "rm -rf /" }));
    expect(result.toolInput).toBeUndefined();
    expect(result.modifiedBy).toBeUndefined();
    expect(result.ledger[0]).toMatchObject({ ignored: true, reason: "shadow (not applied): rewrote the tool input (command)", modification: { applied: false, effective: { command: "ls" } } });
  });

  it("an approver's edit is the input the call runs with, and the approval row keeps proposed, approved and effective", async () => {
    const port = approvals({ decision: "approve", decidedBy: "ops@example.com", timedOut: false, input: { command: "rm -rf ./build/tmp" } });
    const hooks = [patch("scoped", { command: "rm -rf ./build" }), hook({ id: "ask-ops", event: "tool.pre", action: { type: "approve" } })];
    const result = await createHookRuntime({ approvals: port }).dispatch(hooks, toolPre("Bash", { command: "rm -rf build" }));
    // The approver was shown what the modifier left.
    expect(port.requests[0].toolInput).toEqual({ command: "rm -rf ./build" });
    expect(result.toolInput).toEqual({ command: "rm -rf ./build/tmp" });
    expect(result.modifiedBy).toEqual(["scoped", "ask-ops"]);
    expect(result.ledger[1]).toMatchObject({
      reason: "approved with an edited input by ops@example.com",
      modification: { kind: "input", proposed: { command: "rm -rf ./build" }, approved: { command: "rm -rf ./build/tmp" }, effective: { command: "rm -rf ./build/tmp" }, applied: true },
    });
  });

  it("a command's Claude Code answer with updatedInput rewrites the call like a modify hook", () => {
    expect(readHookAnswer({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "ls -la" } } })).toMatchObject({ verdict: "allow", modify: { input: { command: "ls -la" } } });
    expect(readHookAnswer({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "hidden" } }).modify).toEqual({ output: "hidden" });
    // Not an object: no rewrite at all (never a half-read one).
    expect(readHookAnswer({ hookSpecificOutput: { updatedInput: "ls" } }).modify).toBeUndefined();
  });

  it("an input change on an event without a tool input is recorded and not applied", async () => {
    const result = await createHookRuntime({ allowCodeExecution: true }).dispatch(
      [hook({ id: "cmd", event: "user.prompt.submit", action: { type: "command", command: `echo '{"updatedInput":{"prompt":"x"}}'` } })],
      event("user.prompt.submit", { prompt: "hi" }),
    );
    expect(result.toolInput).toBeUndefined();
    expect(result.ledger[0]).toMatchObject({ ignored: true, modification: undefined });
    expect(result.ledger[0].reason).toContain("an input change applies on tool.pre, not user.prompt.submit: not applied");
  });
});

describe("changing what the model sees after a call", () => {
  it("replaces the output and keeps the original in the ledger", async () => {
    const result = await createHookRuntime().dispatch([hook({ id: "swap", event: "tool.post", action: { type: "modify", output: "(output withheld)" } })], postEvent("secret plans"));
    expect(result.toolOutput).toEqual({ value: "(output withheld)" });
    expect(result.ledger[0].modification).toEqual({ kind: "output", original: "secret plans", replaced: "(output withheld)", applied: true });
  });

  it("redacts matches in text and in every string of a structured output; the ledger keeps only the original's hash", async () => {
    const redact = hook({ id: "keys", event: "tool.post", action: { type: "modify", redact: ["sk-[a-z0-9]{6,}", "AKIA[A-Z0-9]{8}"] } });
    const output = { stdout: "OPENAI=sk-abc123xyz\nAWS=AKIAABCDEFGH", stderr: "", code: 0 };
    const result = await createHookRuntime().dispatch([redact], postEvent(output));
    expect(result.toolOutput).toEqual({ value: { stdout: "OPENAI=[REDACTED]\nAWS=[REDACTED]", stderr: "", code: 0 } });
    const row = result.ledger[0].modification!;
    expect(row).toEqual({ kind: "output", originalSha256: sha256Of(output), replaced: { stdout: "OPENAI=[REDACTED]\nAWS=[REDACTED]", stderr: "", code: 0 }, applied: true });
    expect(JSON.stringify(result.ledger)).not.toContain("sk-abc123xyz");

    const clean = await createHookRuntime().dispatch([redact], postEvent("nothing to hide"));
    expect(clean.toolOutput).toBeUndefined();
    expect(clean.ledger[0]).toMatchObject({ reason: "redact: nothing in the output matched", modification: undefined });
  });

  it("chains output changes: a redaction after a replacement works on the replacement", async () => {
    const hooks = [
      hook({ id: "swap", event: "tool.post", action: { type: "modify", output: "token sk-zzzzzzzz" } }),
      hook({ id: "keys", event: "tool.post", action: { type: "modify", redact: ["sk-[a-z]+"], replacement: "***" } }),
    ];
    const result = await createHookRuntime().dispatch(hooks, postEvent("anything"));
    expect(result.toolOutput).toEqual({ value: "token ***" });
    expect(result.modifiedBy).toEqual(["swap", "keys"]);
  });
});

describe("what the record of a redacted output keeps (output-redaction.ts)", () => {
  const keys = (extra: Record<string, unknown> = {}) => hook({ id: "keys", event: "tool.post", action: { type: "modify", redact: ["sk-[a-z0-9]{6,}"] }, ...extra });

  it("an enforced redaction: the record keeps what the model reads, and a plain replacement keeps the tool's output", async () => {
    const result = await createHookRuntime().dispatch([keys()], postEvent("OPENAI=sk-abc123xyz"));
    expect(result.redaction).toEqual({ output: "OPENAI=[REDACTED]", applied: true });
    expect(recordedToolPost({ output: "OPENAI=sk-abc123xyz", isError: false }, result.redaction)).toEqual({ output: "OPENAI=[REDACTED]", isError: false, redacted: true });
    const swapped = await createHookRuntime().dispatch([hook({ id: "swap", event: "tool.post", action: { type: "modify", output: "(withheld)" } })], postEvent("secret plans"));
    expect(swapped.redaction).toBeUndefined();
  });

  it("in shadow mode: the model reads the original, the record keeps the redacted output, the row keeps its hash and says it was not applied", async () => {
    const result = await createHookRuntime().dispatch([keys({ mode: "shadow" })], postEvent("OPENAI=sk-abc123xyz"));
    expect(result.toolOutput).toBeUndefined();
    expect(result.redaction).toEqual({ output: "OPENAI=[REDACTED]", applied: false });
    expect(recordedToolPost({ output: "OPENAI=sk-abc123xyz" }, result.redaction)).toEqual({ output: "OPENAI=[REDACTED]", redacted: true, redactedInShadow: true });
    expect(result.ledger[0]).toMatchObject({
      mode: "shadow",
      ignored: true,
      reason: "shadow (not applied): redacted the tool output",
      modification: { kind: "output", originalSha256: sha256Of("OPENAI=sk-abc123xyz"), replaced: "OPENAI=[REDACTED]", applied: false },
    });
    expect(JSON.stringify(result.ledger)).not.toContain("sk-abc123xyz");
  });

  it("a shadow redaction, then an enforced one on the original: the record keeps neither (each misses the other's), nor does a later row", async () => {
    const shadow = hook({ id: "trial", event: "tool.post", mode: "shadow", action: { type: "modify", redact: ["AKIA[A-Z0-9]{8}"] } });
    const swap = hook({ id: "swap", event: "tool.post", mode: "shadow", action: { type: "modify", output: "x" } });
    const result = await createHookRuntime().dispatch([shadow, keys(), swap], postEvent("AWS=AKIAABCDEFGH OPENAI=sk-abc123xyz"));
    expect(result.toolOutput).toEqual({ value: "AWS=AKIAABCDEFGH OPENAI=[REDACTED]" });
    expect(result.redaction).toEqual({ output: WITHHELD_OUTPUT, applied: true });
    expect(result.ledger.map((row) => row.modification)).toEqual([
      { kind: "output", originalSha256: sha256Of("AWS=AKIAABCDEFGH OPENAI=sk-abc123xyz"), replaced: { sha256: sha256Of("AWS=[REDACTED] OPENAI=sk-abc123xyz"), bytes: 36 }, applied: false },
      { kind: "output", originalSha256: sha256Of("AWS=AKIAABCDEFGH OPENAI=sk-abc123xyz"), replaced: { sha256: sha256Of("AWS=AKIAABCDEFGH OPENAI=[REDACTED]"), bytes: 36 }, applied: true },
      { kind: "output", originalSha256: sha256Of("AWS=AKIAABCDEFGH OPENAI=[REDACTED]"), replaced: { sha256: sha256Of("x"), bytes: 3 }, applied: false },
    ]);
    expect(JSON.stringify(result.ledger)).not.toMatch(/AKIAABCDEFGH|sk-abc123xyz/);
  });

  it("an enforced redaction, then a shadow one: the record keeps both", async () => {
    const shadow = hook({ id: "trial", event: "tool.post", mode: "shadow", action: { type: "modify", redact: ["AKIA[A-Z0-9]{8}"] } });
    const result = await createHookRuntime().dispatch([keys(), shadow], postEvent("AWS=AKIAABCDEFGH OPENAI=sk-abc123xyz"));
    expect(result.toolOutput).toEqual({ value: "AWS=AKIAABCDEFGH OPENAI=[REDACTED]" });
    expect(result.redaction).toEqual({ output: "AWS=[REDACTED] OPENAI=[REDACTED]", applied: true });
    // The first row's output still has the key the second hides: only the record's version is kept.
    expect(result.ledger.map((row) => (row.modification as { replaced?: unknown } | undefined)?.replaced)).toEqual([{ sha256: sha256Of("AWS=AKIAABCDEFGH OPENAI=[REDACTED]"), bytes: 36 }, "AWS=[REDACTED] OPENAI=[REDACTED]"]);
  });
});

describe("ask: the agent asks its own user", () => {
  it("says so in the result without stopping the chain; a later block still wins", async () => {
    const ask = hook({ id: "confirm", event: "tool.pre", action: { type: "ask", reason: "deploys need a human" } });
    const asked = await createHookRuntime().dispatch([ask], toolPre("Bash", { command: "deploy" }));
    expect(asked).toMatchObject({ verdict: "allow", askUser: { hookId: "confirm", reason: "deploys need a human" } });
    expect(asked.ledger[0]).toMatchObject({ verdict: "allow", reason: "asks the agent's user: deploys need a human" });

    const blocked = await createHookRuntime().dispatch([ask, hook({ id: "no", event: "tool.pre", action: { type: "block", reason: "never" } })], toolPre("Bash"));
    expect(blocked).toMatchObject({ verdict: "block", reason: "never" });
  });

  it("in shadow mode asks nobody", async () => {
    const result = await createHookRuntime().dispatch([hook({ id: "confirm", event: "tool.pre", mode: "shadow", action: { type: "ask" } })], toolPre("Bash"));
    expect(result.askUser).toBeUndefined();
    expect(result.ledger[0].ignored).toBe(true);
  });
});
