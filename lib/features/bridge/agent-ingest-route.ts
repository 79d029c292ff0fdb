/**
 * The ingest endpoint of one coding agent, written once: its hook's stdin JSON in (validated with
 * the agent's schema and its own cross-field checks), the session event it maps to checked against
 * the catalog's payload, recorded, and its hooks
 * dispatched as the operator calling, and the agent's hook answer out. Each agent's route names
 * only what is its own (docs/bridges/).
 */
import type { z } from "zod";
import { getDatabase } from "@/db/client";
import type { Issue } from "@/lib/core/issues";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import { producedPayloadIssues } from "@/lib/core/hooks/event-payloads";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute, JsonAnswer } from "@/lib/platform/api/route";
import { ingestSessionEvent, type SessionEvent } from "./session-ingest";
import type { ModificationSupport } from "@/lib/core/dialects/modification-support";

/** The answer's header naming the agent's fail mode: "closed", "open", or "unset" (the CLI's own flag decides). */
export const FAIL_MODE_HEADER = "x-hookplane-fail-mode";

export interface AgentProtocol<S extends z.ZodType> {
  /** How the hook command is written, for the error that names the agent header. */
  command: string;
  schema: S;
  issues: (input: z.infer<S>) => Issue[];
  event: (agent: string, input: z.infer<S>) => SessionEvent;
  answer: (input: z.infer<S>, result: DispatchResult | undefined) => unknown;
  /**
   * What the agent can do with a changed call; its answer must carry each change it claims. A
   * function when one endpoint hears several agents (Cursor through Claude Code's settings).
   */
  applies: ModificationSupport | ((input: z.infer<S>) => ModificationSupport);
}

/** The machine a call came from, as the `hookplane` CLI reports it (untrusted: anyone can send these headers). */
export function machineOf(headers: Headers): { host?: string; osUser?: string; ci?: boolean } {
  return {
    host: headers.get("x-hookplane-host") ?? undefined,
    osUser: headers.get("x-hookplane-os-user") ?? undefined,
    ...(headers.get("x-hookplane-ci") === "1" && { ci: true }),
  };
}

/**
 * What is wrong with the event a bridge made of its agent's input, against the catalog's payload
 * (what hooks, the stream and the browser read): a mapping that drifts from it is refused before
 * anything is stored, by the live route and the offline spool alike.
 */
export function producedEventIssues(event: SessionEvent): Issue[] {
  const type = event.dispatch?.as ?? event.type;
  return producedPayloadIssues(type, event.data).map((i) => ({ ...i, message: `${i.message} (in the ${type} event this hook input maps to)` }));
}

/** A protocol, typed by its schema (each agent's is its own; a map of them holds `AgentProtocol<z.ZodType>`). */
export function agentProtocol<S extends z.ZodType>(protocol: AgentProtocol<S>): AgentProtocol<z.ZodType> {
  return protocol as unknown as AgentProtocol<z.ZodType>;
}

export function agentIngestRoute<S extends z.ZodType>(protocol: AgentProtocol<S>) {
  return apiRoute({ role: "ingest", body: protocol.schema }, async ({ request, principal, body }) => {
    const input = body as z.infer<S>;
    const agent = request.headers.get("x-hookplane-agent")?.trim();
    if (!agent) throw AppError.badRequest(`Name the agent in the X-Hookplane-Agent header (${protocol.command})`);
    const issues = protocol.issues(input);
    if (issues.length > 0) throw AppError.invalid(issues);
    const event = protocol.event(agent, input);
    const produced = producedEventIssues(event);
    if (produced.length > 0) throw AppError.invalid(produced);
    // What only the route knows (no mapping sets either), set on the event the mapping just made.
    event.machine = machineOf(request.headers);
    event.applies = typeof protocol.applies === "function" ? protocol.applies(input) : protocol.applies;
    const { result, failMode } = await ingestSessionEvent(await getDatabase(), principal, event, () => request.signal);
    // The agent's fail mode rides on every answer: the CLI keeps it for when Hookplane cannot answer.
    return new JsonAnswer(protocol.answer(input, result), { [FAIL_MODE_HEADER]: failMode ?? "unset" });
  });
}
