/**
 * The tool-call step of a session: each call of the model's answer is decided by the tool.pre
 * hooks, executed at most once when it has side effects, and checkpointed (loop.ts: failure model).
 */
import type { AgentWithId } from "./loop-ports";
import { step } from "./loop-signals";
import type { StageState } from "./loop-state";
import type { ToolCall } from "./providers/model-provider";
import { SessionBase } from "./session-base";
import { deniedOutput, INTERRUPTED_OUTPUT } from "./session-texts";

export abstract class ToolCallSteps extends SessionBase {
  /** Works the tool calls of the last assistant message; each completed step is checkpointed. */
  protected async runToolCalls(agent: AgentWithId, stage: StageState, calls: ToolCall[]): Promise<boolean> {
    const offered = new Set(this.offeredTools(agent).map((t) => t.name));
    for (const call of calls) {
      const record = (stage.toolCalls[call.id] ??= { toolName: call.name });
      if (record.verdict === "denied" || record.postFired) continue;
      const stop = this.interruption();
      if (stop) {
        this.end(stop.outcome, stop.reason);
        return false;
      }
      if (!record.verdict && !(await this.decideToolCall(agent, call, offered))) continue;
      if (!record.result) await this.executeToolCall(agent, call, record);
      const post = await this.fire("tool.post", {
        toolName: call.name,
        toolInput: record.input ?? call.input,
        toolCallId: call.id,
        output: record.result!.output,
        isError: record.result!.isError,
        durationMs: record.durationMs ?? 0,
      });
      this.queueReminders(post);
      if (post.toolOutput) {
        // What the model reads instead of what the tool returned (a replacement, a redaction).
        const value = post.toolOutput.value;
        record.result = { ...record.result!, output: typeof value === "string" ? value : JSON.stringify(value) ?? "" };
        await this.fact("loop.tool_modified", { toolCallId: call.id, toolName: call.name, kind: "output", by: post.modifiedBy ?? [] });
      }
      record.postFired = true;
      await this.save();
    }
    // Results go in only once every call is settled: OpenAI wants them right after the assistant turn.
    for (const call of calls) {
      const record = stage.toolCalls[call.id];
      const denied = record.verdict === "denied";
      await this.addMessage(stage, agent, {
        role: "tool_result",
        toolCallId: call.id,
        toolName: call.name,
        output: denied ? deniedOutput(record.reason ?? "denied") : record.result!.output,
        isError: denied || record.result!.isError,
      });
    }
    const metadata = await this.readMetadata();
    if (metadata !== undefined && JSON.stringify(metadata) !== JSON.stringify(this.state.lastMetadata)) {
      this.state.lastMetadata = metadata;
      await this.fact("loop.metadata", { metadata });
    }
    return true;
  }

  /** Whether a call may run: offered to the agent, then tool.pre. Denials are recorded. */
  protected async decideToolCall(agent: AgentWithId, call: ToolCall, offered: Set<string>): Promise<boolean> {
    const record = this.state.stage.toolCalls[call.id];
    if (!offered.has(call.name)) {
      record.verdict = "denied";
      record.reason = `tool "${call.name}" is not available to agent ${agent.name}`;
      await this.fact("loop.tool_denied", { toolCallId: call.id, toolName: call.name, reason: record.reason, by: "agent" });
      await this.save();
      return false;
    }
    const pre = await this.fire("tool.pre", { toolName: call.name, toolInput: call.input, toolCallId: call.id });
    this.queueReminders(pre);
    // This loop has no user of its own to ask: a hook that wants one asked blocks the call.
    const refusal = pre.verdict === "block" ? (pre.reason ?? "blocked by a hook") : pre.askUser ? `Hookplane's agent loop has no user of its own to ask (hook ${pre.askUser.hookId}: ${pre.askUser.reason}); an approve hook asks a person` : undefined;
    if (refusal !== undefined) {
      record.verdict = "denied";
      record.reason = refusal;
      await this.fact("loop.tool_denied", { toolCallId: call.id, toolName: call.name, reason: record.reason, by: "hook" });
    } else {
      record.verdict = "allowed";
      if (pre.toolInput) {
        record.input = pre.toolInput;
        await this.fact("loop.tool_modified", { toolCallId: call.id, toolName: call.name, kind: "input", input: pre.toolInput, by: pre.modifiedBy ?? [] });
      }
    }
    await this.save();
    return record.verdict === "allowed";
  }

  /**
   * Runs an allowed call at most once: its intent is stored before the effect and its result right
   * after (a read-only call's result with its tool.post). A call that started before a crash or
   * shutdown and left no result may have done its work: it runs again only when the tool is safe
   * to retry (or listed in the agent's `retryTools`); otherwise it is reported as
   * interrupted, and the model and tool.post hooks decide what comes next.
   */
  protected async executeToolCall(agent: AgentWithId, call: ToolCall, record: StageState["toolCalls"][string]): Promise<void> {
    // Safe to retry: the tool only reads, or the agent opted it into retry (`retryTools`).
    // The input tool.pre's hooks left (a rewrite, an approver's edit) is the one that runs.
    const input = record.input ?? call.input;
    const retryable = this.opts.tools.retrySafe(call.name, input) || (agent.retryTools?.includes(call.name) ?? false);
    if (record.startedAt !== undefined && !retryable) {
      record.result = { output: INTERRUPTED_OUTPUT, isError: true };
      record.durationMs = 0;
      await this.fact("loop.tool_interrupted", { toolCallId: call.id, toolName: call.name, retried: false });
      await this.save(true);
      return;
    }
    if (record.startedAt !== undefined) await this.fact("loop.tool_interrupted", { toolCallId: call.id, toolName: call.name, retried: true });
    record.startedAt = this.now();
    await this.save(true);
    const result = await step(() => this.opts.tools.call(call.name, input, this.inflight.signal));
    // A tool cut short by a shutdown did not finish: its intent stays without a result, and the
    // resumed run reports it as interrupted (or runs it again if it only reads). One that
    // finished within a graceful shutdown's grace period is recorded before the loop stops.
    if (this.inflight.signal.aborted) this.throwIfInterrupted();
    record.durationMs = this.now() - record.startedAt;
    record.result = await this.transforms.toolResult(agent, call, result);
    // The result of a call that must not run twice is stored before anything else happens. One
    // that may run again (it only reads) goes out with its tool.post: a crash before that write
    // runs it again on resume, and it is still recorded once.
    await this.save(!this.opts.tools.retrySafe(call.name, input));
    this.throwIfInterrupted();
  }

}
