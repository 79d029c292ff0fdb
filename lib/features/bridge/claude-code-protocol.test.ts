/**
 * Claude Code 2.1.332's newer events through the bridge's mapping: what each is recorded as, which
 * hooks decide it, and what the answer says. Payload shapes are those of 2.1.332's hook input
 * schemas (read from its binary, see lib/core/dialects/claude-code-events.ts).
 */
import { describe, expect, it } from "vitest";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import { CLAUDE_CODE_EVENTS } from "@/lib/core/dialects/claude-code-events";
import { CLAUDE_EVENTS, claudeHookInputSchema, claudeHookOutput, claudeInputIssues, claudeSessionEvent } from "./claude-code-protocol";

const base = { session_id: "5f0c2d8e-0000-4000-8000-000000000001", cwd: "/work/proj", transcript_path: "/tmp/t.jsonl", permission_mode: "default" };
const input = (fields: Record<string, unknown>) => claudeHookInputSchema.parse({ ...base, ...fields });
const result = (fields: Partial<DispatchResult>): DispatchResult => ({ verdict: "allow", context: [], reminders: [], ledger: [], ...fields });

describe("Claude Code bridge: 2.1.332's events", () => {
  it("a forked session starts a run of its own: session.start with source fork (resume and compact still continue one)", () => {
    const forked = claudeSessionEvent("coder", input({ hook_event_name: "SessionStart", source: "fork", seconds_since_last_response: 12 }));
    expect(forked).toMatchObject({ type: "session.start", data: { source: "fork", prompt: "" } });
    expect(forked.continues).toBeUndefined();
    expect(forked.data.claudeCode).toMatchObject({ seconds_since_last_response: 12, hook_event_name: "SessionStart" });
    expect(claudeSessionEvent("coder", input({ hook_event_name: "SessionStart", source: "resume" }))).toMatchObject({ type: "session.resume", continues: true });
  });

  it("a skill's shell line is decided by tool.pre hooks like a Bash call, and a block answers with a deny", () => {
    const shell = input({
      hook_event_name: "PreSkillShellCommand",
      tool_name: "Bash",
      tool_input: { command: "rm -rf build" },
      tool_use_id: "toolu_skill_1",
      command_name: "deploy",
      command_source: "projectSettings",
      invoked_by: "user",
    });
    expect(claudeInputIssues(shell)).toEqual([]);
    const event = claudeSessionEvent("coder", shell);
    expect(event).toMatchObject({ type: "tool.pre", data: { toolName: "Bash", toolInput: { command: "rm -rf build" }, toolCallId: "toolu_skill_1" } });
    expect(event.data.claudeCode).toEqual({ hook_event_name: "PreSkillShellCommand", command_name: "deploy", command_source: "projectSettings", invoked_by: "user", transcript_path: "/tmp/t.jsonl", permission_mode: "default" });
    expect(claudeHookOutput("PreSkillShellCommand", result({ verdict: "block", reason: "no rm -rf" }))).toEqual({
      hookSpecificOutput: { hookEventName: "PreSkillShellCommand", permissionDecision: "deny", permissionDecisionReason: "no rm -rf" },
    });
    // Its answer takes no additionalContext: a context hook adds nothing to it.
    expect(claudeHookOutput("PreSkillShellCommand", result({ reminders: ["be careful"] }))).toEqual({});
    // Without a tool name it is not Claude Code talking.
    expect(claudeInputIssues(input({ hook_event_name: "PreSkillShellCommand" }))).toEqual([{ path: "tool_name", message: "PreSkillShellCommand needs tool_name" }]);
  });

  it("model switches and added folders are recorded with every field, and answered with nothing", () => {
    const switched = claudeSessionEvent("coder", input({ hook_event_name: "PreModelSwitch", from_model: "claude-sonnet-5", to_model: "claude-opus-5", requested_model: "opus", source: "command", context_tokens: 1200 }));
    expect(switched).toMatchObject({ type: "claude-code.PreModelSwitch", data: { cwd: "/work/proj", claudeCode: { from_model: "claude-sonnet-5", to_model: "claude-opus-5", source: "command", context_tokens: 1200 } } });
    expect(claudeSessionEvent("coder", input({ hook_event_name: "PostModelSwitch", to_model: "claude-opus-5", source: "auto" })).type).toBe("claude-code.PostModelSwitch");
    const added = claudeSessionEvent("coder", input({ hook_event_name: "DirectoryAdded", directory: "/work/other", source: "slash_command" }));
    expect(added).toMatchObject({ type: "claude-code.DirectoryAdded", data: { claudeCode: { directory: "/work/other", source: "slash_command" } } });
    for (const event of ["PreModelSwitch", "PostModelSwitch", "DirectoryAdded"]) expect(claudeHookOutput(event, result({ reminders: ["x"] }))).toEqual({});
  });

  it("every event Claude Code has is mapped as the bridge's table says, or recorded as claude-code.<Event>", () => {
    const table: Record<string, string> = CLAUDE_EVENTS;
    for (const event of ["PreSkillShellCommand", "PreModelSwitch", "PostModelSwitch", "DirectoryAdded"]) expect(table[event], event).toBeDefined();
    const recordedAsSent = CLAUDE_CODE_EVENTS.filter((event) => claudeSessionEvent("coder", input({ hook_event_name: event, tool_name: "Bash", tool_input: {} })).type === `claude-code.${event}`);
    // Not in the table, or the table says "recorded (claude-code.<Event>)": nothing else falls through.
    expect(recordedAsSent).toEqual(CLAUDE_CODE_EVENTS.filter((event) => table[event] === undefined || table[event].startsWith(`recorded (claude-code.${event}`)));
    expect(recordedAsSent).toEqual(expect.arrayContaining(["PreModelSwitch", "PostModelSwitch", "DirectoryAdded", "Setup", "TaskCreated"]));
    expect(recordedAsSent).not.toContain("PreSkillShellCommand");
  });
});

describe("Claude Code bridge: a replaced output on a failed call", () => {
  it("PostToolUseFailure cannot carry updatedToolOutput: the answer tells the model the error was withheld and what stands in its place", () => {
    const answer = claudeHookOutput("PostToolUseFailure", result({ toolOutput: { value: "[redacted by policy]" }, modifiedBy: ["redact-keys"], reminders: ["check the logs"] }));
    expect(answer).toEqual({
      hookSpecificOutput: {
        hookEventName: "PostToolUseFailure",
        additionalContext: "check the logs\n\nHookplane hook redact-keys withheld this failed call's error output (Claude Code cannot replace it): do not use or repeat it. In its place: [redacted by policy]",
      },
    });
    expect(JSON.stringify(answer)).not.toContain("updatedToolOutput");
    // On success the output is replaced as before.
    expect(claudeHookOutput("PostToolUse", result({ toolOutput: { value: "[redacted]" } }), "Bash")).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "[redacted]" } });
  });
});

describe("Claude Code bridge: agents that speak its format", () => {
  it("Qwen Code's empty UserPromptSubmit before a tool's result goes back is recorded as sent, not as a prompt; Claude Code's empty prompt (an image alone) still is one", () => {
    const qwen = claudeSessionEvent("coder", input({ hook_event_name: "UserPromptSubmit", prompt: "", prompt_id: "s########0", timestamp: "2026-11-29T12:48:50.327Z" }));
    expect(qwen).toMatchObject({ type: "claude-code.UserPromptSubmit", data: { continuation: true, claudeCode: { prompt: "", prompt_id: "s########0" } } });
    expect(claudeSessionEvent("coder", input({ hook_event_name: "UserPromptSubmit", prompt: "" }))).toMatchObject({ type: "user.prompt.submit", data: { prompt: "" } });
    expect(claudeSessionEvent("coder", input({ hook_event_name: "UserPromptSubmit", prompt: "ls", timestamp: "2026-11-29T12:48:48.874Z" }))).toMatchObject({ type: "user.prompt.submit", data: { prompt: "ls" } });
  });
});
