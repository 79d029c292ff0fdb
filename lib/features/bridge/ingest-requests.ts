/**
 * The generic ingest endpoint's body: any runtime reports a canonical event of one of its sessions
 * and gets the hooks' decision back (api.md, External agents).
 */
import { z } from "zod";
import { agentNameSchema } from "@/lib/core/agent/agent-spec";
import { ingestPayloadSchema } from "@/lib/core/hooks/event-payloads";
import { EVENT_NAMES, type EventName } from "@/lib/core/hooks/events";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";

/** Events the caller reports; approval.* are Hookplane's own and written by the approval port. */
const INGESTIBLE = EVENT_NAMES.filter((e) => !e.startsWith("approval.")) as [string, ...string[]];

export const ingestEventSchema = z
  .object({
    agent: agentNameSchema,
    sessionId: z.string().min(1).max(300),
    /** What the runtime calls itself, stored as the run's source. */
    source: z.string().min(1).max(60).regex(/^[a-z0-9][a-z0-9._-]*$/, "source is lowercase letters, digits, '.', '_' and '-'").default("ingest"),
    event: z
      .object({
        type: z.enum(INGESTIBLE),
        data: z.record(z.string(), z.unknown()).default({}),
      })
      .strict()
      // The payload is checked against the event's own schema (the catalog's), issues at their path.
      .superRefine((event, ctx) => {
        const checked = ingestPayloadSchema(event.type as EventName).safeParse(event.data);
        if (checked.success) return;
        for (const issue of checked.error.issues) ctx.addIssue({ ...issue, path: ["data", ...issue.path] } as never);
      }),
    /**
     * What the runtime does with a changed call: runs a tool with the answer's `toolInput`, shows
     * its model the answer's `toolOutput`, asks its user on `askUser`. A change it does not claim
     * blocks the call instead. Left out: none.
     */
    applies: z.object({ input: z.boolean().default(false), output: z.boolean().default(false), ask: z.boolean().default(false) }).strict().optional(),
  })
  .strict();
export type IngestEventRequest = z.infer<typeof ingestEventSchema>;

/** The decision, in the shape of hook-model's dispatch result minus the ledger (read it per run). */
export function ingestAnswer(runId: string, seq: number, result: DispatchResult | undefined) {
  return {
    runId,
    seq,
    verdict: result?.verdict ?? "allow",
    ...(result?.reason ? { reason: result.reason } : {}),
    ...(result && result.context.length > 0 ? { context: result.context } : {}),
    ...(result?.output ? { output: result.output } : {}),
    ...(result?.approval ? { approval: { decision: result.approval.decision, decidedBy: result.approval.decidedBy, timedOut: result.approval.timedOut } } : {}),
    ...(result?.toolInput ? { toolInput: result.toolInput } : {}),
    ...(result?.toolOutput ? { toolOutput: result.toolOutput.value } : {}),
    ...(result?.askUser ? { askUser: result.askUser } : {}),
    reminders: result?.reminders ?? [],
  };
}
