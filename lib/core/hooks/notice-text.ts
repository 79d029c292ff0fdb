/**
 * What a notice says in one line, for people who read it in a chat between two other things:
 * "Approval needed: agent ops-bot wants to run Bash `rm -rf build/`". The same line is the Slack
 * text, the Discord content and the webhook's `notice.summary`; secret values are masked from the
 * whole message after it is built (notify.ts), this only keeps it short.
 */
import type { HookEvent } from "./event";

const TOOL_ARGUMENT_LIMIT = 120;
/** The input fields that say what a call does, in the order they are looked for. */
const TELLING_FIELDS = ["command", "cmd", "path", "file_path", "filePath", "url", "query", "pattern"];

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `Bash `rm -rf build/``: the tool and the one argument that says what it does, or its compact input. */
export function toolCallText(toolName: unknown, toolInput: unknown): string {
  const name = typeof toolName === "string" && toolName ? toolName : "a tool";
  let argument: string | undefined;
  if (toolInput && typeof toolInput === "object" && !Array.isArray(toolInput)) {
    const input = toolInput as Record<string, unknown>;
    const field = TELLING_FIELDS.find((f) => typeof input[f] === "string" && input[f] !== "");
    argument = field ? (input[field] as string) : Object.keys(input).length ? JSON.stringify(input) : undefined;
  } else if (typeof toolInput === "string" && toolInput) argument = toolInput;
  if (argument === undefined) return name;
  const oneLine = truncate(argument.replace(/\s+/g, " ").trim(), TOOL_ARGUMENT_LIMIT).replace(/`/g, "'");
  return `${name} \`${oneLine}\``;
}

const SETTLED_WORDS: Record<string, string> = { approved: "Approved", denied: "Denied", timed_out: "Approval timed out", abandoned: "Approval abandoned" };

/** The one line a notice of `event` leads with. */
export function noticeHeadline(event: HookEvent): string {
  const data = event.data;
  const agent = `agent ${event.agentName}`;
  const call = () => toolCallText(data.toolName, data.toolInput);
  switch (event.type) {
    case "approval.requested":
      return `Approval needed: ${agent} wants to run ${call()}`;
    case "approval.settled": {
      const { status, decidedBy, decidedVia, decision } = event.data;
      const by = decidedBy !== undefined && (status === "approved" || status === "denied") ? ` by ${decidedBy}${decidedVia !== undefined ? ` via ${decidedVia}` : ""}` : "";
      return `${SETTLED_WORDS[status] ?? "Approval settled"}${by}: ${agent} ${decision === "approve" ? "may run" : "may not run"} ${call()}`;
    }
    case "session.start":
      return `Run started: ${agent}`;
    case "session.end": {
      const { outcome = "ended", reason } = event.data;
      return `Run ${outcome}: ${agent}${outcome !== "completed" && reason ? `: ${truncate(reason, 200)}` : ""}`;
    }
    case "error":
      return `Run error: ${agent}: ${truncate(String(data.message ?? data.error ?? "unknown error"), 200)}`;
    case "tool.pre":
      return `${capitalize(agent)} is about to run ${call()}`;
    case "tool.post":
      return `${capitalize(agent)} ran ${call()}${event.data.isError === true ? " (it failed)" : ""}`;
    default:
      return `${event.type}: ${agent}`;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The run in the dashboard. */
export function runLink(publicUrl: string, runId: string): string {
  return `${publicUrl}/runs/${encodeURIComponent(runId)}`;
}
