/**
 * What the approvals feature takes and answers, declared once. Its answers: an approval as the list
 * query selects it (db/queries/approvals.ts `listApprovals`: the approval, its run's agent and
 * person), sent by GET /api/v1/approvals and read by the approval card, the inbox and the run view
 * with that type, and the run's last events the card shows with it. Its inputs: the list's filters,
 * a decision (the API, the card's form, a decision link, Slack's edit modal) and Slack's interactions.
 */
import { z } from "zod";
import type { listApprovals } from "@/db/queries/approvals";
import type { listRunEventsTail } from "@/db/queries/run-events";
import { APPROVAL_STATUSES } from "@/db/schema";
import type { Json } from "@/lib/platform/api/json";
import { cursorTimeSchema, listQuerySchema } from "@/lib/platform/api/list-query";
import { personReferenceSchema } from "@/lib/platform/auth/person-reference";
import { uuidSchema } from "@/lib/core/safe-input";

/** One approval of GET /api/v1/approvals `items`. */
export type ApprovalResponse = Json<Awaited<ReturnType<typeof listApprovals>>[number]>;

/**
 * One of the run's last events before the question, as GET /api/v1/runs/{id}/events?tail= sends
 * them (db/queries/run-events.ts `listRunEventsTail`; approvals do not depend on runs).
 */
export type ApprovalContextEvent = Json<Awaited<ReturnType<typeof listRunEventsTail>>[number]>;

/** GET /api/v1/approvals: by status, or the approvals a person's agents asked for, newest first. */
export const approvalsQuerySchema = listQuerySchema(z.object({ at: cursorTimeSchema, id: uuidSchema }).strict()).extend({
  status: z.enum(APPROVAL_STATUSES).optional(),
  /** The approvals a person's agents asked for: their user id or email. */
  actor: personReferenceSchema.optional(),
});

/** The largest edited input an approver may send (its JSON, in bytes): a tool call, not a file upload. */
export const MAX_EDITED_INPUT_BYTES = 64 * 1024;

/** A decision's fields; every schema of a decision is built on these with `decisionRules`. */
export const decisionFields = z.object({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().max(2000).optional(),
  /** "Approve and always allow this": also write an allow rule for the same call, in shadow mode first. */
  alwaysAllow: z.boolean().optional(),
  /**
   * The call's input as the approver edited it (the whole input, an object): approving runs the
   * call with it, the approval keeps it next to what was asked, and an agent that cannot run the
   * edited call gets it blocked instead. Operators and admins only.
   */
  input: z
    .record(z.string(), z.unknown())
    .superRefine((value, ctx) => {
      const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
      if (bytes > MAX_EDITED_INPUT_BYTES) ctx.addIssue({ code: "custom", message: `the edited input is ${bytes} bytes of JSON; at most ${MAX_EDITED_INPUT_BYTES}` });
    })
    .optional(),
});
export type DecisionRequest = z.infer<typeof decisionFields>;

/** The rules across a decision's fields, for every schema built on decisionFields. */
export function decisionRules(body: DecisionRequest, ctx: z.RefinementCtx) {
  if (body.input === undefined) return;
  if (body.decision !== "approve") ctx.addIssue({ code: "custom", path: ["input"], message: "an edited input goes with approve: a denied call does not run" });
  if (body.alwaysAllow) ctx.addIssue({ code: "custom", path: ["alwaysAllow"], message: "always allow writes a rule for the call as asked; it does not go with an edited input" });
}

/** POST /api/v1/approvals/{id}/decision, and a decision link's or Slack edit's answer. */
export const decisionSchema = decisionFields.superRefine(decisionRules);

/** The approval card's form: the decision and which approval it answers. */
export const decisionFormSchema = decisionFields.extend({ id: z.string() }).superRefine(decisionRules);

/**
 * Slack's interactivity request (POST /api/integrations/slack/interactions, after its signature is
 * checked), as Slack POSTs it in `payload`: a block_actions click or a view_submission, read
 * loosely (Slack adds fields).
 */
export const slackPayloadSchema = z.looseObject({
  type: z.string(),
  user: z.looseObject({ id: z.string().min(1).max(64), username: z.string().max(200).optional(), name: z.string().max(200).optional() }),
  channel: z.looseObject({ id: z.string().max(64), name: z.string().max(200).optional() }).optional(),
  message: z.looseObject({ ts: z.string().max(64) }).optional(),
  response_url: z.url().max(2000).optional(),
  trigger_id: z.string().max(255).optional(),
  actions: z.array(z.looseObject({ action_id: z.string().max(255), value: z.string().max(2000).optional() })).max(25).default([]),
  view: z
    .looseObject({
      callback_id: z.string().max(255).optional(),
      private_metadata: z.string().max(3000).optional(),
      state: z.looseObject({ values: z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().nullish() }))) }).optional(),
    })
    .optional(),
});
export type SlackPayload = z.infer<typeof slackPayloadSchema>;
