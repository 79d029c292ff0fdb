/**
 * The Claude Code bridge driven by payloads recorded from the real Claude Code 2.1.197
 * (test/fixtures/bridges/claude-code, see its SOURCE.md): each recorded session is replayed
 * through the ingest endpoint as Claude Code sent it, and the run it leaves is checked exactly.
 * PermissionRequest and Notification were recorded from the interactive CLI (under a terminal);
 * events not recorded at all are built from its hooks reference and say so. Cost comes from the
 * recorded transcripts, through the real CLI.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listApprovals } from "@/db/queries/approvals";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRun, getRunByExternalSession } from "@/db/queries/runs";
import { recordedPayloads, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/claude-code");
type Payload = Record<string, unknown> & { session_id: string; hook_event_name: string };

/** A recorded session's hook payloads, in the order Claude Code sent them. */
const recorded = (folder: string) => recordedPayloads<Payload>(FIXTURES, folder);

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
  prices: true,
  agents: {
    plain: [],
    gates: [
      { id: "greet", event: "session.start", action: { type: "context", text: "Welcome back to the repo." } },
      { id: "tests-first", event: "turn.end", when: "stopHookActive: /false/", action: { type: "block", reason: "Run the tests before you stop." } },
      { id: "cite", event: "agent.stop", matcher: "general-purpose", action: { type: "block", reason: "Cite the files you listed." } },
      { id: "ask-writes", event: "tool.pre", matcher: "Write", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } },
      { id: "fail-note", event: "tool.post", when: "isError", action: { type: "context", text: "A tool failed: say so to the user." } },
    ],
    thrifty: { spec: { budgetUsd: 0.05 } },
  },
});
const send = (agent: string, payload: Payload) => h.send(agent, payload);

async function replay(agent: string, payloads: Payload[]) {
  const answers = [];
  for (const p of payloads) {
    const res = await send(agent, p);
    expect(res.status, `${p.hook_event_name}: ${JSON.stringify(res.body)}`).toBe(200);
    answers.push(res.body as Record<string, unknown>);
  }
  return answers;
}

async function runOf(agent: string, sessionId: string) {
  const run = await getRunByExternalSession(h.t.db, { agentId: h.agentIds[agent], externalSessionId: sessionId });
  expect(run, `a run for ${sessionId}`).toBeTruthy();
  return run!;
}

const eventsOf = async (runId: string) => listRunEventsAfter(h.t.db, { runId, after: 0, limit: 1000 });

/** Claude Code's field → where the stored event keeps it (anything else: under `claudeCode`, as sent). */
const CANONICAL: Record<string, string> = {
  cwd: "cwd",
  tool_name: "toolName",
  tool_input: "toolInput",
  tool_use_id: "toolCallId",
  tool_response: "output",
  duration_ms: "durationMs",
  prompt: "prompt",
  agent_id: "agentId",
  agent_type: "agentType",
  stop_hook_active: "stopHookActive",
  last_assistant_message: "response",
  tool_calls: "toolCalls",
  source: "source",
  reason: "reason",
  message: "message",
  error: "error",
};

/** The same sessions recorded from Claude Code 2.1.332 (its default model, effort and all: SOURCE.md). */
const VERSION_2_1_332 = ["bash-ok-2.1.332", "bash-fail-2.1.332", "write-default-2.1.332"];

describe("recorded sessions, replayed", () => {
  test("every field of every recorded payload is kept in the stored event", async () => {
    for (const folder of ["bash-ok", "bash-fail", "subagent", "write-default", "interactive-bash", "interactive-write", ...VERSION_2_1_332]) {
      const payloads = recorded(folder);
      await replay("plain", payloads);
      const run = await runOf("plain", payloads[0].session_id);
      const events = (await eventsOf(run.id)).filter((e) => !e.type.startsWith("loop.") && !e.type.startsWith("approval."));
      expect(events).toHaveLength(payloads.length);
      events.forEach((event, i) => {
        const sent = payloads[i];
        const data = event.data as Record<string, unknown> & { claudeCode: Record<string, unknown> };
        for (const [key, value] of Object.entries(sent)) {
          if (key === "session_id") continue; // the run's externalSessionId
          const where = CANONICAL[key];
          const kept = where && where in data && !(key in data.claudeCode) ? data[where] : data.claudeCode[key];
          expect(kept, `${folder} ${sent.hook_event_name}.${key}`).toEqual(value);
        }
      });
    }
  });

  test("a plain session: start, prompt, a tool that ran with its duration, the turn's end, SessionEnd other → completed", async () => {
    const payloads = recorded("bash-ok");
    const run = await runOf("plain", payloads[0].session_id);
    expect(run).toMatchObject({ status: "finished", outcome: "completed", reason: "other", source: "claude-code", toolsUsed: ["Bash"] });
    const events = await eventsOf(run.id);
    expect(events.map((e) => e.type)).toEqual([
      "session.start",
      "user.prompt.submit",
      "tool.pre",
      "tool.post",
      "tool.batch",
      "claude-code.MessageDisplay",
      "turn.end",
      "session.end",
    ]);
    expect(events[0].data).toMatchObject({ source: "startup", cwd: "/work/cli-lab/proj" });
    expect(events[3].data).toMatchObject({ toolName: "Bash", toolCallId: payloads[3].tool_use_id, isError: false, durationMs: payloads[3].duration_ms });
    expect(events[6].data).toMatchObject({ stopHookActive: false, response: "Done." });
    expect(events[7].data).toMatchObject({ outcome: "completed", reason: "other" });
  });

  test("Claude Code 2.1.332 keeps 2.1.197's session shape; a permission it refuses in print mode now fires PermissionRequest, for the call its PreToolUse announced", async () => {
    const shapes = new Map<string, string[]>();
    const replayed = (folder: string) => recorded(folder).map((p) => ({ ...p, session_id: `${p.session_id}-shape` }));
    for (const folder of VERSION_2_1_332) {
      const payloads = replayed(folder);
      await replay("plain", payloads);
      const run = await runOf("plain", payloads[0].session_id);
      shapes.set(folder, (await eventsOf(run.id)).map((e) => e.type));
    }
    const plain = ["session.start", "user.prompt.submit", "tool.pre", "tool.post", "tool.batch", "claude-code.MessageDisplay", "turn.end", "session.end"];
    expect(shapes.get("bash-ok-2.1.332")).toEqual(plain);
    expect(shapes.get("bash-fail-2.1.332")).toEqual(plain);
    expect(shapes.get("write-default-2.1.332")).toEqual(["session.start", "user.prompt.submit", "tool.pre", "tool.permission_request", "tool.batch", "claude-code.MessageDisplay", "turn.end", "session.end"]);
    const written = replayed("write-default-2.1.332");
    const run = await runOf("plain", written[0].session_id);
    const events = await eventsOf(run.id);
    // No tool_use_id on PermissionRequest (as in 2.1.197's interactive mode): the call is the announced one.
    expect(written[3]).not.toHaveProperty("tool_use_id");
    expect(events[3].data).toMatchObject({ toolName: "Write", toolCallId: (written[2] as Record<string, unknown>).tool_use_id, claudeCode: { permission_mode: "default", effort: { level: "medium" } } });
    const failed = await eventsOf((await runOf("plain", replayed("bash-fail-2.1.332")[0].session_id)).id);
    expect(failed[3].data).toMatchObject({ toolName: "Bash", isError: true });
  });

  test("PostToolUseFailure is a tool.post with isError, the error and the duration; tool.post hooks see it", async () => {
    const payloads = recorded("bash-fail").map((p) => ({ ...p, session_id: `${p.session_id}-gates` }));
    const answers = await replay("gates", payloads);
    const failure = payloads.findIndex((p) => p.hook_event_name === "PostToolUseFailure");
    expect(answers[failure]).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "A tool failed: say so to the user." } });
    const run = await runOf("gates", payloads[0].session_id);
    const post = (await eventsOf(run.id)).find((e) => e.type === "tool.post")!;
    expect(post.data).toMatchObject({ toolName: "Bash", toolInput: { command: "exit 3", description: "Fail on purpose" }, isError: true, error: "Exit code 3", output: "Exit code 3", durationMs: 14 });
    expect((post.data.claudeCode as Record<string, unknown>).is_interrupt).toBe(false);
  });

  test("subagents: agent.start/agent.stop by their type, their tool calls carry the subagent's id", async () => {
    const payloads = recorded("subagent");
    const run = await runOf("plain", payloads[0].session_id);
    const events = await eventsOf(run.id);
    const agentId = payloads.find((p) => p.hook_event_name === "SubagentStart")!.agent_id;
    expect(events.map((e) => [e.type, e.data.agentName ?? e.data.toolName, e.data.agentId])).toEqual([
      ["session.start", undefined, undefined],
      ["user.prompt.submit", undefined, undefined],
      ["tool.pre", "Agent", undefined],
      ["agent.start", "general-purpose", agentId],
      ["tool.pre", "Bash", agentId],
      ["tool.post", "Bash", agentId],
      ["tool.batch", undefined, agentId],
      ["agent.stop", "general-purpose", agentId],
      ["tool.post", "Agent", undefined],
      ["tool.batch", undefined, undefined],
      ["claude-code.MessageDisplay", undefined, undefined],
      ["turn.end", undefined, undefined],
      ["session.end", undefined, undefined],
    ]);
    expect(events.find((e) => e.type === "tool.pre" && e.data.agentId)!.data.agentType).toBe("general-purpose");
  });

  test("a block on Stop or a subagent's stop keeps it working (decision block); stop_hook_active lets it stop", async () => {
    const payloads = recorded("subagent").map((p) => ({ ...p, session_id: `${p.session_id}-gates` }));
    const end = payloads.pop()!;
    const answers = await replay("gates", payloads);
    const at = (event: string) => answers[payloads.findIndex((p) => p.hook_event_name === event)];
    expect(at("SubagentStop")).toEqual({ decision: "block", reason: "Cite the files you listed." });
    expect(at("Stop")).toEqual({ decision: "block", reason: "Run the tests before you stop." });
    const stop = payloads.find((p) => p.hook_event_name === "Stop")!;
    expect((await send("gates", { ...stop, stop_hook_active: true })).body).toEqual({});
    await send("gates", end);
    const run = await runOf("gates", stop.session_id);
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    expect(ledger.filter((r) => r.verdict === "block").map((r) => [r.event, r.hookKey])).toEqual([
      ["agent.stop", "cite"],
      ["turn.end", "tests-first"],
    ]);
  });

  test("SessionStart: startup fires session.start hooks once; resume and compact are recorded in the same run, reopened", async () => {
    const resume = recorded("resume");
    const compact = recorded("compact");
    expect(compact[0].session_id).toBe(resume[0].session_id);
    const startup = { ...resume[0], source: "startup" };
    expect((await send("gates", startup)).body).toEqual({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "Welcome back to the repo." } });
    const answers = await replay("gates", [...resume.filter((p) => p.hook_event_name !== "Stop"), ...compact]);
    expect(answers[0]).toEqual({}); // resume: no session.start hooks
    const run = await runOf("gates", resume[0].session_id);
    expect(run).toMatchObject({ status: "finished", outcome: "completed" });
    const types = (await eventsOf(run.id)).map((e) => e.type);
    expect(types.filter((x) => x.startsWith("session."))).toEqual([
      "session.start",
      "session.resume",
      "session.end",
      // The session was ended (SessionEnd), then compacted after a resume: the same run again.
      "session.resume",
      "session.compact",
      "session.end",
    ]);
    expect(types).toContain("claude-code.PreCompact");
    expect(types).toContain("claude-code.PostCompact");
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    expect(ledger.filter((r) => r.hookKey === "greet")).toHaveLength(1);
    // The compaction's own subagent has no type: it is named "subagent".
    expect((await eventsOf(run.id)).find((e) => e.type === "agent.stop")!.data).toMatchObject({ agentName: "subagent", agentType: "" });
  });

  test("SessionEnd reasons → outcomes: bypass_permissions_disabled ends cancelled, the others completed", async () => {
    const base = recorded("bash-ok")[0];
    for (const [reason, outcome] of [["clear", "completed"], ["logout", "completed"], ["prompt_input_exit", "completed"], ["bypass_permissions_disabled", "cancelled"]]) {
      const session = `end-${reason}`;
      await replay("plain", [{ ...base, session_id: session }, { ...base, session_id: session, hook_event_name: "SessionEnd", reason, source: undefined }]);
      expect(await runOf("plain", session), reason).toMatchObject({ status: "finished", outcome, reason });
    }
  });
});

describe("sessions recorded from the interactive CLI (PermissionRequest fires only there)", () => {
  // Replayed by "every field of every recorded payload is kept" above, as the plain session is.
  test("PermissionRequest as the interactive CLI sends it (no tool_use_id): the call its PreToolUse announced, the user's answer", async () => {
    const payloads = recorded("interactive-bash");
    const run = await runOf("plain", payloads[0].session_id);
    const events = await eventsOf(run.id);
    expect(events.map((e) => e.type)).toEqual([
      "session.start",
      "user.prompt.submit",
      "tool.pre",
      "tool.permission_request",
      "notification",
      "tool.post",
      "tool.batch",
      "claude-code.MessageDisplay",
      "turn.end",
      // The user said No to the second command: Claude Code sends no PostToolUse and no Stop.
      "user.prompt.submit",
      "tool.pre",
      "tool.permission_request",
      "session.end",
    ]);
    const [first, second] = events.filter((e) => e.type === "tool.permission_request");
    expect(first.data).toMatchObject({ toolName: "Bash", toolInput: payloads[3].tool_input, toolCallId: payloads[2].tool_use_id });
    expect(second.data).toMatchObject({ toolInput: { command: "touch /tmp/cc-lab/proj/refused", description: "Run a command" }, toolCallId: payloads[10].tool_use_id });
    expect((first.data.claudeCode as Record<string, unknown>).permission_suggestions).toEqual([
      { type: "addDirectories", directories: ["/tmp/cc-lab/proj"], destination: "session" },
      { type: "setMode", mode: "acceptEdits", destination: "session" },
    ]);
    expect(events[4].data).toMatchObject({ message: "Claude needs your permission", claudeCode: { notification_type: "permission_prompt" } });
    expect(run).toMatchObject({ status: "finished", outcome: "completed", reason: "prompt_input_exit" });
  });

  test("PermissionRequest asks only approve hooks: a decision through the API answers it; one already made for the call answers at once", async () => {
    const [start, prompt, pre, permission] = recorded("interactive-write");
    const sessionOf = (id: string) => (p: Payload) => ({ ...p, session_id: id });
    // Only PermissionRequest reaches Hookplane (a settings file that binds it alone): the approval is the prompt's.
    const alone = sessionOf("perm-alone");
    await send("gates", alone(start));
    const asking = send("gates", alone(permission));
    let approval = await h.pendingApproval((a) => a.toolName === "Write", { timeout: 15_000 });
    expect((await h.decide(approval.id, { decision: "deny", reason: "not today" })).status).toBe(200);
    expect((await asking).body).toEqual({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: expect.stringContaining("not today") } } });
    const aloneRun = await runOf("gates", "perm-alone");
    expect((await eventsOf(aloneRun.id)).find((e) => e.type === "tool.permission_request")!.data.toolCallId).toBe(approval.toolCallId);

    // PreToolUse asked first and a person approved; Claude Code's own prompt then asks again: the same call, the same answer, no new approval.
    const both = sessionOf("perm-both");
    await send("gates", both(start));
    await send("gates", both(prompt));
    const asked = send("gates", both(pre));
    approval = await h.pendingApproval((a) => a.toolCallId === pre.tool_use_id, { timeout: 15_000 });
    await h.decide(approval.id, { decision: "approve" });
    expect((await asked).body.hookSpecificOutput.permissionDecision).toBe("allow");
    expect((await send("gates", both(permission))).body).toEqual({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } });
    expect((await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 50 })).filter((a) => a.toolCallId === pre.tool_use_id)).toHaveLength(1);

    // Nothing to approve for Bash: no answer, so Claude Code asks its user as usual.
    const bash = recorded("interactive-bash")[3];
    expect((await send("gates", { ...bash, session_id: "perm-both" })).body).toEqual({});
    const events = await eventsOf((await runOf("gates", "perm-both")).id);
    expect(events.filter((e) => e.type === "tool.permission_request").map((e) => [e.data.toolName, e.data.toolCallId])).toEqual([
      ["Write", pre.tool_use_id],
      ["Bash", expect.any(String)],
    ]);
  });

});

describe("events built from Claude Code's hooks reference", () => {
  const base = { session_id: "notes-1", transcript_path: "/tmp/t.jsonl", cwd: "/home/dev/project", permission_mode: "default" };

  test("Notification and unknown newer events are recorded with their fields; a tool event without tool_name is refused at the field", async () => {
    await send("plain", { ...base, session_id: "notes-1", hook_event_name: "Notification", message: "Claude needs your permission to use Bash", notification_type: "permission_prompt", title: "Permission" });
    await send("plain", { ...base, session_id: "notes-1", hook_event_name: "FutureThing", detail: { a: 1 } });
    const run = await runOf("plain", "notes-1");
    const events = await eventsOf(run.id);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ["notification", expect.objectContaining({ message: "Claude needs your permission to use Bash", claudeCode: expect.objectContaining({ notification_type: "permission_prompt", title: "Permission" }) })],
      ["claude-code.FutureThing", expect.objectContaining({ claudeCode: expect.objectContaining({ hook_event_name: "FutureThing", detail: { a: 1 } }) })],
    ]);
    const bad = await send("plain", { ...base, session_id: "notes-1", hook_event_name: "PostToolUseFailure", error: "boom" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe("tool_name");
  });
});

describe("cost from the transcript", () => {
  const PER_MESSAGE = (1200 * 15 + 300 * 1.5 + 80 * 75) / 1e6; // claude-opus-4-8 at the published opus-4 price

  const cli = (agent: string, payload: Payload) => runHookplaneCli(["hook", "claude-code", "--agent", agent], payload, h.cliEnv());

  test("Stop sends the transcript's usage, SubagentStop the subagent's; each message counts once", async () => {
    const payloads = recorded("subagent").map((p) => ({
      ...p,
      session_id: `${p.session_id}-cost`,
      transcript_path: path.join(FIXTURES, "transcripts", "27e6aa8a-306c-48cb-bd71-11aa360ffea4.jsonl"),
      ...(p.agent_transcript_path ? { agent_transcript_path: path.join(FIXTURES, "transcripts/subagents", path.basename(String(p.agent_transcript_path))) } : {}),
    }));
    const end = payloads.pop()!;
    const stop = payloads.find((p) => p.hook_event_name === "Stop")!;
    // The session's calls, then the same messages reported again (a second Stop, then SessionEnd).
    for (const p of [...payloads, stop, end]) {
      const out = await cli("plain", p);
      expect(out.code).toBe(0);
      expect(out.stderr, p.hook_event_name).toBe("");
    }
    const run = (await getRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, id: (await runOf("plain", stop.session_id)).id }))!;
    expect(run.status).toBe("finished");
    expect(run).toMatchObject({ inputTokens: 4 * 1500, outputTokens: 4 * 80, cachedTokens: 4 * 300 });
    expect(run.costUsd).toBeCloseTo(4 * PER_MESSAGE, 9);
    const posts = (await eventsOf(run.id)).filter((e) => e.type === "model.post");
    expect(posts.map((e) => [e.data.messageId, e.data.model, e.data.agentId ?? null])).toEqual([
      ["msg_fake_10", "anthropic:claude-opus-4-8", expect.any(String)],
      ["msg_fake_11", "anthropic:claude-opus-4-8", expect.any(String)],
      ["msg_fake_8", "anthropic:claude-opus-4-8", null],
      ["msg_fake_12", "anthropic:claude-opus-4-8", null],
    ]);
  });

  test("a message split over several lines counts once; an unreadable transcript only warns", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "hp-transcript-"));
    const line = (block: unknown) => JSON.stringify({ type: "assistant", message: { id: "msg_split", model: "claude-opus-4-8", content: [block], usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 300 } } });
    const file = path.join(dir, "t.jsonl");
    writeFileSync(file, `${line({ type: "text", text: "a" })}\n${line({ type: "tool_use", id: "x", name: "Bash", input: {} })}\n{"type":"assistant","mess`);
    const stop = { ...recorded("bash-ok").find((p) => p.hook_event_name === "Stop")!, session_id: "split-1", transcript_path: file };
    expect((await cli("plain", stop)).code).toBe(0);
    expect(await runOf("plain", "split-1")).toMatchObject({ inputTokens: 1500, outputTokens: 80 });
    const missing = await cli("plain", { ...stop, session_id: "split-2", transcript_path: path.join(dir, "gone.jsonl") });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain("could not read the transcript for its usage: ENOENT");
  });

  test("a session over its agent's budget: the next gated call is blocked with why, the run ends budget, and stays so", async () => {
    const payloads = recorded("bash-ok").map((p) => ({ ...p, session_id: "budget-1", transcript_path: path.join(FIXTURES, "transcripts", "27e6aa8a-306c-48cb-bd71-11aa360ffea4.jsonl") }));
    const [start, prompt, pre] = payloads;
    const stop = payloads.find((p) => p.hook_event_name === "Stop")!;
    for (const p of [start, prompt, pre, stop]) expect((await cli("thrifty", p)).code).toBe(0);
    // Two messages of the transcript: 2 × $0.02445 = $0.0489, under $0.05; one more turn goes over.
    const more = mkdtempSync(path.join(tmpdir(), "hp-transcript-"));
    const file = path.join(more, "t.jsonl");
    writeFileSync(file, `${readFileSync(stop.transcript_path as string, "utf8")}\n${JSON.stringify({ type: "assistant", message: { id: "msg_more", model: "claude-opus-4-8", content: [], usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 300 } } })}\n`);
    expect((await cli("thrifty", { ...stop, transcript_path: file })).code).toBe(0);
    const denied = (await cli("thrifty", { ...pre, tool_use_id: "toolu_after_budget" })).json() as { hookSpecificOutput: Record<string, string> };
    expect(denied.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(denied.hookSpecificOutput.permissionDecisionReason).toMatch(/reached its budget in Hookplane: cost \$0\.073\d reached the budget of \$0\.05/);
    const run = await runOf("thrifty", "budget-1");
    expect(run).toMatchObject({ status: "finished", outcome: "budget" });
    expect((await eventsOf(run.id)).map((e) => e.type).slice(-1)).toEqual(["session.end"]);
    const again = (await cli("thrifty", { ...pre, tool_use_id: "toolu_after_budget_2" })).json() as { hookSpecificOutput: Record<string, string> };
    expect(again.hookSpecificOutput.permissionDecision).toBe("deny");
    expect((await getRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!.outcome).toBe("budget");
  });
});
