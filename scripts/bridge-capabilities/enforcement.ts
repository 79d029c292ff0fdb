/**
 * What Hookplane can enforce through one of an agent's events, asked of the bridge itself: each
 * recorded payload goes through the agent's ingest protocol (ingest-routes.ts), and its answer
 * to a made-up dispatch result (a block, a person's yes, a rewrite, context) says whether the agent
 * is told. What the agent can apply comes from modification-support.ts, the table session-ingest
 * enforces; a cell says yes only when that table and the answer agree. So the docs follow the
 * code instead of someone's memory of it.
 */
import { isBlockingEvent, type EventName } from "@/lib/core/hooks/events";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import { AGENT_PROTOCOLS } from "@/lib/features/bridge/ingest-routes";
import { MODIFICATION_SUPPORT, type ModificationSupport } from "@/lib/core/dialects/modification-support";
import { isDispatchedEvent, type SessionEvent } from "@/lib/features/bridge/session-ingest";
import type { Payload } from "./fixtures";

export const CAPABILITIES = ["block", "person", "ask", "input", "output", "context"] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const CAPABILITY_TITLES: Record<Capability, string> = {
  block: "block",
  person: "ask a person (`approve`)",
  ask: "`ask` (its own user)",
  input: "rewrite input",
  output: "replace output",
  context: "add context",
};

/** A cell: "—" where the capability does not apply to the event (no hooks, not a tool call). */
export const NOT_APPLICABLE = "—";

export interface EventEnforcement {
  /** What Hookplane records the event as, one entry per distinct mapping seen in the payloads. */
  records: string[];
  cells: Record<Capability, string>;
}

type AgentName = keyof typeof AGENT_PROTOCOLS;

/** What the answer must carry back (context, output, the rewritten input's key); reasons are prose, so left out of a cell. */
const MARK = "capability-probe";
const REASON = "a hook said so";
const base = { verdict: "allow", context: [], reminders: [], ledger: [] } satisfies DispatchResult;
const approved = { decision: "approve", decidedBy: "a person", timedOut: false, hookId: MARK } as const;
const PROBES = {
  plain: base,
  block: { ...base, verdict: "block", reason: REASON },
  person: { ...base, approval: approved },
  ask: { ...base, askUser: { hookId: MARK, reason: REASON } },
  input: { ...base, toolInput: { [MARK]: true }, modifiedBy: [MARK] },
  /** An approver's edit: the only rewrite a permission request can carry. */
  editedApproval: { ...base, approval: approved, toolInput: { [MARK]: true } },
  output: { ...base, toolOutput: { value: MARK } },
  context: { ...base, context: [MARK], reminders: [MARK] },
} satisfies Record<string, DispatchResult>;

/** The bridge's body for a payload: Copilot's stdin names no event, its hook command does (`--event`). */
export function bridgeBody(agent: string, payload: Payload): Record<string, unknown> {
  return namesEventInCommand(agent) ? { ...payload.stdin, hookEventName: payload.event } : payload.stdin;
}

export function namesEventInCommand(agent: string): boolean {
  return protocolOf(agent).command.includes("--event");
}

export function protocolOf(agent: string) {
  if (!(agent in AGENT_PROTOCOLS)) throw new Error(`no ingest protocol for the fixtures of ${agent} (lib/features/bridge/ingest-routes.ts)`);
  return AGENT_PROTOCOLS[agent as AgentName];
}

export function supportOf(agent: string): ModificationSupport {
  const support = MODIFICATION_SUPPORT[agent];
  if (!support) throw new Error(`modification-support.ts says nothing of ${agent}`);
  return support;
}

/** The canonical event whose hooks run for it, as session-ingest decides. */
function dispatchedAs(event: SessionEvent): EventName | undefined {
  return event.dispatch?.as ?? (isDispatchedEvent(event.type) ? event.type : undefined);
}

function recordsLabel(event: SessionEvent): string {
  if (event.dispatch) return `\`${event.type}\` (${event.dispatch.as}'s ${event.dispatch.only?.join(", ") ?? "every"} hooks)`;
  return dispatchedAs(event) ? `\`${event.type}\`` : `\`${event.type}\` (recorded, no hooks)`;
}

/** An answer as `path → value` for every leaf (`hookSpecificOutput.` left out: every Claude Code answer has it). */
function leaves(value: unknown, at = ""): Map<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return new Map([[at.replace(/^hookSpecificOutput\./, ""), value]]);
  return new Map(Object.entries(value).flatMap(([key, inner]) => [...leaves(inner, at ? `${at}.${key}` : key)]));
}

/**
 * What an answer says that the plain one does not: the field carrying the probe (`updatedInput`),
 * or a decision's word (`permissionDecision: "deny"`); only when there is neither, the field that
 * carries the reason (Cursor's stop says no by its `followup_message`). Event names are left out.
 */
function changedFields(plain: Map<string, unknown>, probed: Map<string, unknown>, eventName: string): string[] {
  const decisive = new Set<string>();
  const prose = new Set<string>();
  for (const [path, value] of probed) {
    if (plain.has(path) && JSON.stringify(plain.get(path)) === JSON.stringify(value)) continue;
    if (path.endsWith(`.${MARK}`)) decisive.add(`\`${path.slice(0, -MARK.length - 1)}\``);
    else if (value === MARK) decisive.add(`\`${path}\``);
    else if (typeof value === "boolean" || (typeof value === "string" && /^[a-z]+$/.test(value) && value !== eventName)) decisive.add(`\`${path}: ${JSON.stringify(value)}\``);
    else if (typeof value === "string" && value !== eventName) prose.add(`\`${path}\``);
  }
  return [...(decisive.size > 0 ? decisive : prose)];
}

/** What one event of one agent lets Hookplane enforce, from its payloads (all versions: the bridge answers by event name). */
export function eventEnforcement(agent: string, payloads: Payload[]): EventEnforcement {
  const protocol = protocolOf(agent);
  const support = supportOf(agent);
  const mapped = payloads.map((payload) => {
    const input = protocol.schema.parse(bridgeBody(agent, payload));
    return { payload, input, event: protocol.event("capability-table", input) };
  });
  const records = [...new Set(mapped.map(({ event }) => recordsLabel(event)))];
  const gate = mapped.find(({ event }) => dispatchedAs(event) !== undefined);
  const none = Object.fromEntries(CAPABILITIES.map((c) => [c, NOT_APPLICABLE])) as Record<Capability, string>;
  if (!gate) return { records, cells: none };

  const canonical = dispatchedAs(gate.event)!;
  const onlyApprovals = gate.event.dispatch?.only !== undefined;
  const answer = (result: DispatchResult) => protocol.answer(gate.input, result) ?? {};
  const plain = leaves(answer(PROBES.plain));
  /** `yes (field)` when the answer to the probe says it, else undefined. */
  const says = (result: DispatchResult, yes = "yes") => {
    const fields = changedFields(plain, leaves(answer(result)), gate.payload.event);
    return fields.length > 0 ? `${yes} (${fields.join(", ")})` : undefined;
  };
  const blocking = isBlockingEvent(canonical);
  const keepsWorking = canonical === "turn.end" || canonical === "agent.stop";
  const block = blocking ? says(PROBES.block, keepsWorking ? "yes, keeps it working" : "yes") : undefined;

  const cells = { ...none };
  cells.block = !blocking ? NOT_APPLICABLE : (block ?? "no");
  // A person's no is the block; a yes the agent cannot be told leaves the call to its own rules.
  cells.person = !blocking ? NOT_APPLICABLE : !block ? "no" : (says(PROBES.person) ?? "a no only");
  cells.context = onlyApprovals ? NOT_APPLICABLE : (says(PROBES.context) ?? "no");
  if (canonical === "tool.pre" && !onlyApprovals) {
    cells.ask = (support.ask && says(PROBES.ask)) || "no: blocked";
    cells.input = (support.input && says(PROBES.input, support.input === "keys-kept" ? "yes, no key removed" : "yes")) || "no: blocked";
  }
  if (canonical === "tool.pre" && onlyApprovals) cells.input = (support.permissionInput && says(PROBES.editedApproval, "an approver's edit")) || "no: blocked";
  if (canonical === "tool.post") cells.output = !support.output ? "no: blocked before it runs" : outputCell(says(PROBES.output));
  return { records, cells };
}

/** A replaced output only if a field other than the context carries it (a failed call's answer can only say it was withheld). */
function outputCell(said: string | undefined): string {
  if (!said) return "no (its answer has no field for it)";
  return /^yes \(`[^`]*additionalContext`\)$/.test(said) ? "no: the model is told the output was withheld (`additionalContext`)" : said;
}
