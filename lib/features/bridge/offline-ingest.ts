/**
 * `POST /api/v1/ingest/offline`: what a coding agent's `hookplane` CLI decided alone while
 * Hookplane could not be reached (failing closed, or open where told to), sent from its local
 * spool once Hookplane answers again. Each entry is the agent's own hook stdin, read with that
 * agent's protocol as a live call would be, and recorded as its person's, marked offline; an entry
 * sent again is recorded once. `dropped` says how many the spool had to discard (it is bounded):
 * an audit row keeps that something went unrecorded.
 */
import { z } from "zod";
import { FAIL_MODES } from "@/lib/core/agent/agent-spec";
import { getDatabase } from "@/db/client";
import { logAudit } from "@/db/queries/audit";
import { apiRoute } from "@/lib/platform/api/route";
import { machineOf, producedEventIssues, type AgentProtocol } from "./agent-ingest-route";
import { recordOfflineDecision } from "./session-ingest";

export const MAX_OFFLINE_ENTRIES = 200;

const offlineEntrySchema = z
  .object({
    id: z.uuid(),
    bridge: z.string().min(1).max(40),
    agent: z.string().min(1).max(200),
    payload: z.record(z.string(), z.unknown()),
    decision: z.enum(["allowed", "blocked"]),
    reason: z.string().max(2000),
    decidedAt: z.iso.datetime({ offset: true }),
    /** What the CLI applied and where it had it from (its kept copy of the agent's policy, its flag, its default); older CLIs leave them out. */
    failMode: z.enum(FAIL_MODES).optional(),
    failModeFrom: z.enum(["policy", "flag", "default"]).optional(),
  })
  .strict();

export const offlineBatchSchema = z
  .object({
    entries: z.array(offlineEntrySchema).max(MAX_OFFLINE_ENTRIES),
    dropped: z.number().int().min(0).max(1_000_000_000).default(0),
  })
  .strict();

type Outcome = "recorded" | "duplicate" | "unknown_agent" | "unreadable";

export function offlineIngestRoute(protocols: Record<string, AgentProtocol<z.ZodType>>) {
  return apiRoute({ role: "ingest", body: offlineBatchSchema }, async ({ request, principal, body }) => {
    const handle = await getDatabase();
    const machine = machineOf(request.headers);
    const outcomes: { id: string; outcome: Outcome }[] = [];
    // One at a time, in the order decided: a session's events keep their order.
    for (const entry of [...body.entries].sort((a, b) => a.decidedAt.localeCompare(b.decidedAt))) {
      const protocol = Object.hasOwn(protocols, entry.bridge) ? protocols[entry.bridge] : undefined;
      const parsed = protocol?.schema.safeParse(entry.payload);
      if (!protocol || !parsed?.success || protocol.issues(parsed.data).length > 0) {
        outcomes.push({ id: entry.id, outcome: "unreadable" });
        continue;
      }
      const event = { ...protocol.event(entry.agent, parsed.data), machine };
      if (producedEventIssues(event).length > 0) {
        outcomes.push({ id: entry.id, outcome: "unreadable" });
        continue;
      }
      const outcome = await recordOfflineDecision(handle, principal, event, {
        id: entry.id,
        decision: entry.decision,
        reason: entry.reason,
        decidedAt: new Date(entry.decidedAt),
        failMode: entry.failMode,
        failModeFrom: entry.failModeFrom,
      });
      outcomes.push({ id: entry.id, outcome });
    }
    if (body.dropped > 0) {
      await logAudit(handle.db, {
        projectId: principal.projectId,
        actor: principal.email ?? principal.label,
        action: "offline.dropped",
        entityType: "bridge",
        after: { dropped: body.dropped, machine },
      });
    }
    const count = (outcome: Outcome) => outcomes.filter((o) => o.outcome === outcome).length;
    return { recorded: count("recorded"), duplicates: count("duplicate"), unknownAgent: count("unknown_agent"), unreadable: count("unreadable"), outcomes };
  });
}
