/**
 * What the agent loop hands to `dispatch`, and the one context object every hook sees: `when` paths,
 * `{{templates}}`, the JSON on a command's stdin and a webhook's body are all read from it.
 */
import type { RecordedPayload } from "./event-payloads";
import type { EventName, Outcome } from "./events";

interface HookEventBase {
  runId: string;
  agentId?: string;
  agentName: string;
  sessionId?: string;
  /** Epoch milliseconds or an ISO string. */
  ts: number | string;
  /** The event's seq in the run's stream, when it was recorded first (the ledger rows point at it). */
  seq?: number;
  /** What the agent wrote into its metadata file (herdctl `metadata_file`). */
  metadata?: Record<string, unknown>;
  /** Template variables of the entry point (Tailored AI: cron `last_run`, ..., `response`). */
  vars?: Record<string, string>;
  /** The agent's workspace: `save_json` writes only inside it, commands run in it. */
  workspaceDir?: string;
  scheduleId?: string;
  /** What started the run (herdctl `triggerType`): manual, schedule, api... */
  triggerType?: string;
  /**
   * Set when the event belongs to a stage of a flow: `agentId`/`agentName` are then the stage
   * agent's, and this is the flow (the run's agent). Hooks scoped to either apply.
   */
  flow?: { id?: string; name: string };
  /**
   * Who acts, in an outside agent's session: the person (or the token no person owns) whose
   * credential sent the event, their role in the project, and the machine as its CLI reports it
   * (untrusted). `when: "actor.email: /@contractors\\.example$/"`, `when: "actor.role: viewer"`.
   */
  actor?: EventActor;
}

/**
 * One event as hooks see it, typed by its type: `data` is the catalog's payload of that event
 * (event-payloads.ts, RecordedPayload), so a branch on `type` reads its fields typed. Every way in
 * checks it: the loop's `fire` is typed, the bridges check what they produce, the generic ingest
 * its body; a type known only at run time becomes a HookEvent through `hookEvent`.
 */
export type HookEvent = { [K in EventName]: HookEventBase & { type: K; data: RecordedPayload<K> } }[EventName];

/** A HookEvent's fields with its type and payload as plain values: what a boundary holds before it knows which event it is. */
export type UntypedHookEvent = HookEventBase & { type: EventName; data: Record<string, unknown> };

/**
 * The one door from an event whose type is known only at run time (a dispatch request, a stored
 * row, a hook trial's body) to a HookEvent: its payload was checked on its way in.
 */
export function hookEvent(event: UntypedHookEvent): HookEvent {
  return event as HookEvent;
}

export interface EventActor {
  /** `user:<id>`, `service:<id>` (a service account) or `token:<id>`. */
  key: string;
  /** A service account's name: CI or a job acts, not a person (`when: "actor.service: ci-deploy"`). */
  service?: string;
  userId?: string;
  email?: string;
  /** The email, or the token's label. */
  label: string;
  /** The person's groups from single sign-on, as the identity provider last sent them. */
  groups?: string[];
  /** The role in the run's project when the event came. */
  role?: string;
  host?: string;
  osUser?: string;
  /**
   * Which of the person's agents acted: `interactive` (the session's own agent), `subagent` (one it
   * delegated to: `subagent` names it, `parent` the session that delegated), `headless` (run in CI,
   * as the CLI reports it).
   */
  tier?: "interactive" | "subagent" | "headless";
  subagent?: { id: string; type?: string };
  parent?: { sessionId: string };
}

export type HookContext = Record<string, unknown>;

/**
 * A flat merge `{event, runId, agentName, ...data, metadata, vars}`; on session.end also herdctl's
 * `result: {success, output, error}`, `job: {...}` and `agent: {...}` so `jq -r '.result.output'`
 * and `when: result.success` work as its docs show.
 */
export function buildHookContext(event: HookEvent): HookContext {
  const context: HookContext = {
    event: event.type,
    runId: event.runId,
    agentId: event.agentId,
    agentName: event.agentName,
    sessionId: event.sessionId,
    ts: event.ts,
    // A payload's own fields win (agent.start's agentName is the stage agent's).
    ...(event.data as Record<string, unknown>),
    metadata: event.metadata ?? {},
    vars: event.vars ?? {},
  };
  if (event.triggerType) context.triggerType = event.triggerType;
  if (event.flow) context.flowName = event.flow.name;
  if (event.actor) context.actor = event.actor;
  addClaudeCodeFields(context, event);
  if (event.type === "session.end" || event.type === "error") {
    const data = event.data;
    const outcome = (data.outcome as Outcome | undefined) ?? (event.type === "error" ? "failed" : undefined);
    const error = data.error ?? (outcome && outcome !== "completed" ? (data.reason ?? data.message) : undefined);
    context.result = {
      success: outcome === "completed",
      output: data.response ?? "",
      ...(error !== undefined ? { error: String(error) } : {}),
    };
    context.job = {
      id: event.runId,
      agentId: event.agentName,
      scheduleName: event.scheduleId,
      startedAt: data.startedAt,
      completedAt: data.finishedAt ?? toIso(event.ts),
      durationMs: data.durationMs,
    };
    context.agent = { id: event.agentId ?? event.agentName, name: event.agentName };
  }
  return context;
}

/** `{{var}}` variables: the event's own, then the common ones every entry point has. */
export function templateVarsOf(event: HookEvent): Record<string, unknown> {
  const data = event.data;
  return {
    runId: event.runId,
    agentName: event.agentName,
    event: event.type,
    toolName: data.toolName,
    prompt: data.prompt,
    response: data.response,
    outcome: data.outcome,
    ...event.vars,
  };
}

/**
 * What `matcher` is compared with: the tool on tool events, the agent elsewhere: the one the event
 * is about when it names one (a flow's agent, a Claude Code subagent's type), else the run's.
 */
export function matcherSubject(event: HookEvent): { kind: "tool" | "agent"; name: string } {
  const tool = event.data.toolName;
  if (typeof tool === "string") return { kind: "tool", name: tool };
  const agent = event.data.agentName;
  return { kind: "agent", name: typeof agent === "string" ? agent : event.agentName };
}

/** Claude Code's stdin names, so its hook scripts (`jq -r .tool_input.command`) run unchanged. */
const CLAUDE_CODE_EVENT: Partial<Record<EventName, string>> = {
  "session.start": "SessionStart",
  "user.prompt.submit": "UserPromptSubmit",
  "tool.pre": "PreToolUse",
  "tool.post": "PostToolUse",
  "turn.end": "Stop",
  "agent.stop": "SubagentStop",
  "session.end": "SessionEnd",
};

function addClaudeCodeFields(context: HookContext, event: HookEvent) {
  const name = CLAUDE_CODE_EVENT[event.type];
  if (!name) return;
  const data = event.data;
  context.hook_event_name = name;
  context.session_id = event.sessionId ?? event.runId;
  // A bridged session's own folder is the event's `cwd` (where its agent works); otherwise the workspace.
  if (event.workspaceDir && typeof data.cwd !== "string") context.cwd = event.workspaceDir;
  if (data.toolName !== undefined) context.tool_name = data.toolName;
  if (data.toolInput !== undefined) context.tool_input = data.toolInput;
  if (event.type === "tool.post") context.tool_response = data.output;
  if (event.type === "turn.end") {
    // Stop hooks check stop_hook_active so they do not keep the agent working forever.
    context.stop_hook_active = data.stopHookActive === true;
    if (typeof data.response === "string") context.last_assistant_message = data.response;
  }
}

function toIso(ts: number | string): string {
  return typeof ts === "number" ? new Date(ts).toISOString() : ts;
}
