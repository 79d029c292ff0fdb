/**
 * What a hook does when it fires: one schema per action (block, approve, modify, webhook, ...) and
 * their union. The spec (spec.ts) puts an action in a hook; secret-placement.ts judges where an
 * action's secrets may go.
 */
import { z } from "zod";
import { issueFrom } from "../issues";
import { regexError } from "./linear-regex";
import { CONFIDENCES, DETECTOR_NAMES } from "../detectors/detector-names";

/** The longest timeout a hook or action may have (importers name it in their file's own unit). */
export const MAX_DURATION_MS = 7 * 24 * 3600 * 1000;
export const durationMs = z.number().int().min(1).max(MAX_DURATION_MS);

/** A pattern run by RE2 (linear time): a bad one is reported at parse time, at its own field. */
export const regexSchema = z.string().superRefine(issueFrom(regexError));

/** A detector by name; an unknown one is refused at its own path, with the names there are. */
const detectorName = z.enum(DETECTOR_NAMES, { error: (issue) => `unknown detector ${JSON.stringify(issue.input)} (there are ${DETECTOR_NAMES.join(", ")})` });

/**
 * `denyIf` naming detectors instead of a pattern: the condition holds when one of them finds
 * something at or above `minConfidence` (docs/detectors.md). Which detectors may be named where
 * depends on what the hook reads (spec.ts, denyIfIssues).
 */
export const denyIfDetectsSchema = z
  .object({
    detects: z.array(detectorName).min(1).max(DETECTOR_NAMES.length),
    minConfidence: z.enum(CONFIDENCES).default("medium"),
  })
  .strict();
export type DenyIfDetects = z.infer<typeof denyIfDetectsSchema>;

/**
 * A pattern or detectors: a string is read as the pattern, an object as detectors, each judged by
 * its own schema so a problem is reported at its own path (`action.denyIf.detects[0]`), which a
 * zod union would fold into one "invalid input" at `action.denyIf`.
 */
const denyIfSchema = z.unknown().transform((value, ctx) => {
  if (typeof value !== "string" && (typeof value !== "object" || value === null || Array.isArray(value))) {
    ctx.addIssue({ code: "custom", message: 'denyIf is a regex (a string) or detectors ({"detects": ["secrets"]})' });
    return z.NEVER;
  }
  const parsed = typeof value === "object" ? denyIfDetectsSchema.safeParse(value) : regexSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: "custom", message: issue.message, path: issue.path } as never);
  return z.NEVER;
}) as unknown as z.ZodType<string | DenyIfDetects, string | z.input<typeof denyIfDetectsSchema>>;

/** True when `denyIf` names detectors rather than a pattern. */
export function isDenyIfDetects(denyIf: string | DenyIfDetects | undefined): denyIf is DenyIfDetects {
  return typeof denyIf === "object" && denyIf !== null;
}

export const blockAction = z.object({
  type: z.literal("block"),
  reason: z.string().min(1).default("Blocked by hook"),
  /**
   * Regex over the JSON of the tool input, or detectors (`{detects: ["secrets"]}`) over what the
   * call carries as a detect hook reads it; the block applies only when it matches or they find.
   */
  denyIf: denyIfSchema.optional(),
});
/** The roles of Hookplane's users, as an approver group may name them. */
export const APPROVER_ROLES = ["admin", "operator", "viewer"] as const;

/**
 * Who may decide: people by email (or by the part before the `@`, a username) and whole roles.
 * Left out, any operator may decide, as before.
 */
export const approversSchema = z
  .object({
    users: z.array(z.string().trim().min(1).max(320).toLowerCase()).max(100).optional(),
    roles: z.array(z.enum(APPROVER_ROLES)).max(3).optional(),
  })
  .strict()
  .refine((a) => (a.users?.length ?? 0) + (a.roles?.length ?? 0) > 0, "name at least one user or role, or leave approvers out");
export type Approvers = z.infer<typeof approversSchema>;

export const approveAction = z.object({
  type: z.literal("approve"),
  timeoutMs: durationMs.default(30 * 60 * 1000),
  onTimeout: z.enum(["deny", "allow", "wait"]).default("deny"),
  /** Loom's tool globs: the approval applies only to these tools. */
  tools: z.array(z.string().min(1)).optional(),
  message: z.string().optional(),
  /** Only these people decide (API, dashboard, links, Slack); the notices go to them. */
  approvers: approversSchema.optional(),
});
/**
 * `allow`: lets a tool call through without asking: the `approve` hooks after it on the same
 * event are not run (recorded as not asked). Block hooks still run. With `input`, only a call
 * whose input is exactly that JSON (key order aside). What "Approve and always allow this" writes,
 * in shadow mode first.
 */
export const allowAction = z.object({
  type: z.literal("allow"),
  input: z.unknown().optional(),
  reason: z.string().max(500).optional(),
});
/** The largest input patch or replacement output a `modify` hook may carry (its JSON, in bytes). */
export const MAX_MODIFY_BYTES = 64 * 1024;
const withinModifyCap = (value: unknown, ctx: z.RefinementCtx) => {
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
  if (bytes > MAX_MODIFY_BYTES) ctx.addIssue({ code: "custom", message: `at most ${MAX_MODIFY_BYTES} bytes of JSON (this is ${bytes})` });
};
/**
 * `modify`: rewrites what a tool call carries, in the open (every change is a ledger row with the
 * input or output before and after). On tool.pre, `input` is a JSON merge patch (RFC 7396: a
 * `null` value removes a key) applied to the tool input; the hooks after it, the approver and the
 * tool see the result. On tool.post, `output` replaces the tool's output, or `redact` patterns
 * replace each match in it with `replacement`, before the model sees it. An agent that cannot
 * apply the change gets the call blocked, never run unmodified.
 */
export const modifyAction = z.object({
  type: z.literal("modify"),
  input: z.record(z.string(), z.unknown()).superRefine(withinModifyCap).optional(),
  output: z.string().superRefine(withinModifyCap).optional(),
  redact: z.array(regexSchema).min(1).max(50).optional(),
  replacement: z.string().max(200).optional(),
  reason: z.string().max(500).optional(),
});
/**
 * `ask`: the agent asks its own user before the call runs (Claude Code's `permissionDecision:
 * "ask"`). Hookplane's own agent loop has no user of its own: there, and on an agent that cannot
 * ask, the call is blocked with the reason.
 */
export const askAction = z.object({
  type: z.literal("ask"),
  reason: z.string().min(1).max(500).optional(),
});
export const contextAction = z.object({ type: z.literal("context"), text: z.string().min(1) });
export const toolAction = z.object({
  type: z.literal("tool"),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  /** Regex over the tool output; a match skips the remaining hooks (and the loop on session.start). */
  skipIf: regexSchema.optional(),
  /**
   * Regex over the tool output; a match refuses (blocks) with the output as the reason, and stops
   * the chain (Tailored AI `hooks.on` `denyIf`). Checked before skipIf. Or detectors that read text
   * (`{detects: ["secrets", "pii"]}`): a finding in the output refuses, the reason naming it.
   */
  denyIf: denyIfSchema.optional(),
  timeoutMs: durationMs.optional(),
});
const secretName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a secret name is letters, digits and '_'");

export const commandAction = z.object({
  type: z.literal("command"),
  command: z.string().min(1),
  /** Secrets this command may see, exposed as environment variables of the same name. */
  secrets: z.array(secretName).optional(),
  /** Default 5 s (Loom); a timeout is a failure and follows onFailure (blocks by default on gates). */
  timeoutMs: durationMs.optional(),
});
export const webhookAction = z.object({
  type: z.literal("webhook"),
  url: z.string().min(1),
  method: z.enum(["POST", "PUT"]).default("POST"),
  headers: z.record(z.string(), z.string()).default({}),
  timeoutMs: durationMs.optional(),
});
export const slackAction = z.object({
  type: z.literal("slack"),
  channel: z.string().min(1),
  /** The secret holding the bot token; its hosts must include Slack's API host. */
  tokenSecret: secretName,
  timeoutMs: durationMs.optional(),
});
export const discordAction = z.object({
  type: z.literal("discord"),
  channel: z.string().min(1),
  /** The secret holding the bot token; its hosts must include Discord's API host. */
  tokenSecret: secretName,
  timeoutMs: durationMs.optional(),
});
export const logAction = z.object({ type: z.literal("log"), message: z.string().optional() });
export const saveJsonAction = z.object({ type: z.literal("save_json"), path: z.string().min(1) });
/**
 * `limit`: at most `max` calls let through per `windowMs` (a sliding window: the calls it let
 * through in the last `windowMs`, counted across every web process), per person (`actor`: all
 * their sessions and subagents together), per session (`session`), or per agent. Past it, the
 * call is refused with `reason` (or one naming the limit) and the count; refused calls do not count.
 */
export const limitAction = z.object({
  type: z.literal("limit"),
  max: z.number().int().min(1).max(1_000_000),
  windowMs: z.number().int().min(1_000).max(MAX_DURATION_MS),
  per: z.enum(["actor", "session", "agent"]).default("actor"),
  reason: z.string().min(1).max(500).optional(),
});
export const codeAction = z.object({
  type: z.literal("code"),
  module: z.string().min(1),
  timeoutMs: durationMs.optional(),
});

/**
 * `detect`: named detectors (lib/core/detectors, docs/detectors.md) look at the call; what they
 * find at or above `minConfidence` blocks it, has the agent ask its user, is redacted from a
 * tool's output (tool.post), or is only recorded.
 */
export const DETECT_VERDICTS = ["block", "ask", "redact", "record"] as const;
export const detectAction = z.object({
  type: z.literal("detect"),
  detectors: z.array(z.enum(DETECTOR_NAMES)).min(1).max(DETECTOR_NAMES.length),
  verdict: z.enum(DETECT_VERDICTS).default("block"),
  minConfidence: z.enum(CONFIDENCES).default("medium"),
  /** Said before the findings in the reason the agent sees. */
  reason: z.string().min(1).max(500).optional(),
  /** Session rules: hosts a session may still reach after reading a secret (a host or its subdomains). */
  hosts: z.array(z.string().trim().min(1).max(253).toLowerCase()).max(200).optional(),
  /** Session rules: files a session may delete in a minute (default 20). */
  deletesPerMinute: z.number().int().min(1).max(100_000).optional(),
  /** An asynchronous detector's time (secrets, session rules); default 2 s. */
  timeoutMs: durationMs.optional(),
});

export const hookActionSchema = z.discriminatedUnion("type", [
  blockAction,
  approveAction,
  allowAction,
  contextAction,
  toolAction,
  commandAction,
  webhookAction,
  slackAction,
  discordAction,
  logAction,
  saveJsonAction,
  codeAction,
  limitAction,
  modifyAction,
  askAction,
  detectAction,
]);
export type HookAction = z.infer<typeof hookActionSchema>;
export type BlockAction = z.infer<typeof blockAction>;
export type ApproveAction = z.infer<typeof approveAction>;
export type AllowAction = z.infer<typeof allowAction>;
export type ContextAction = z.infer<typeof contextAction>;
export type ToolAction = z.infer<typeof toolAction>;
export type CommandAction = z.infer<typeof commandAction>;
export type WebhookAction = z.infer<typeof webhookAction>;
export type SlackAction = z.infer<typeof slackAction>;
export type DiscordAction = z.infer<typeof discordAction>;
export type LogAction = z.infer<typeof logAction>;
export type SaveJsonAction = z.infer<typeof saveJsonAction>;
export type CodeAction = z.infer<typeof codeAction>;
export type LimitAction = z.infer<typeof limitAction>;
export type ModifyAction = z.infer<typeof modifyAction>;
export type AskAction = z.infer<typeof askAction>;
export type DetectAction = z.infer<typeof detectAction>;
export type HookActionType = HookAction["type"];
export const ACTION_TYPES = hookActionSchema.options.map((o) => o.shape.type.value) as HookActionType[];

/** Actions that gate: on blocking events their failure blocks unless onFailure says otherwise. */
export const GATING_ACTIONS: ReadonlySet<HookActionType> = new Set(["block", "approve", "command", "webhook", "code", "tool", "limit", "modify", "ask", "detect"]);
