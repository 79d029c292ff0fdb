import { describe, expect, it } from "vitest";
import { event } from "./testing/fakes";
import { noticeHeadline, toolCallText } from "./notice-text";

describe("the one line a notice leads with", () => {
  it("names the agent, the tool and what the call does", () => {
    const requested = event("approval.requested", { approvalId: "a1", toolName: "Bash", toolInput: { command: "rm -rf build/" } }, { agentName: "ops-bot" });
    expect(noticeHeadline(requested)).toBe("Approval needed: agent ops-bot wants to run Bash `rm -rf build/`");
    const settled = event("approval.settled", { status: "approved", decision: "approve", decidedBy: "alice@example.com", decidedVia: "slack", toolName: "Bash", toolInput: { command: "ls" } }, { agentName: "ops-bot" });
    expect(noticeHeadline(settled)).toBe("Approved by alice@example.com via slack: agent ops-bot may run Bash `ls`");
    expect(noticeHeadline(event("approval.settled", { status: "timed_out", decision: "deny", toolName: "Bash" }, { agentName: "ops-bot" }))).toBe(
      "Approval timed out: agent ops-bot may not run Bash",
    );
    expect(noticeHeadline(event("session.end", { outcome: "failed", reason: "model refused" }, { agentName: "ops-bot" }))).toBe("Run failed: agent ops-bot: model refused");
    expect(noticeHeadline(event("session.end", { outcome: "completed", reason: "ignored" }, { agentName: "ops-bot" }))).toBe("Run completed: agent ops-bot");
  });

  it("keeps the call short, on one line, without backticks that would end the code span", () => {
    expect(toolCallText("write_file", { path: "a.txt", content: "x" })).toBe("write_file `a.txt`");
    expect(toolCallText("http", { method: "GET" })).toBe('http `{"method":"GET"}`');
    expect(toolCallText("Bash", { command: "echo `id`\n\n ls" })).toBe("Bash `echo 'id' ls`");
    expect(toolCallText("Bash", { command: "x".repeat(500) })).toHaveLength("Bash ``".length + 120);
    expect(toolCallText(undefined, undefined)).toBe("a tool");
  });
});
