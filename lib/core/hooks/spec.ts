/**
 * The hook spec: what a stored, imported or API-submitted hook looks like (hook-model.md).
 * The same schema validates the API body, the editor form and imported configs, so an error
 * reads the same everywhere.
 */
import { z } from "zod";
import { EVENT_NAMES, OUTCOMES, isBlockingEvent, nearestName, type EventName } from "./events";
import { regexError } from "./linear-regex";
import { compileMatcher } from "./matcher";
import { egressIssues } from "./secret-placement";
import { compileWhen } from "./when";

export const eventNameSchema = z.string().superRefine((value, ctx) => {
  if ((EVENT_NAMES as string[]).includes(value)) return;
  const hint = nearestName(value, EVENT_NAMES);
  ctx.addIssue({
    code: "custom",
    message: `unknown event "${value}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${EVENT_NAMES.join(", ")})`,
  });
}) as unknown as z.ZodType<EventName>;

/** The longest timeout a hook or action may have (importers name it in their file's own unit). */
export const MAX_DURATION_MS = 7 * 24 * 3600 * 1000;
const durationMs = z.number().int().min(1).max(MAX_DURATION_MS);

/** A pattern run by RE2 (linear time): a bad one is reported at parse time, at its own field. */
export const regexSchema = z.string().superRefine((value, ctx) => {
  const error = regexError(value);
  if (error) ctx.addIssue({ code: "custom", message: error });
});

/** Runs `compile` and turns what it throws into an issue on this field. */
function compiles(compile: (value: string) => unknown) {
  return (value: string, ctx: z.RefinementCtx) => {
    try {
      compile(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  };
}

export const blockAction = z.object({
  type: z.literal("block"),
  reason: z.string().min(1).default("Blocked by hook"),
  /** Regex over the JSON of the tool input; the block applies only when it matches. */
  denyIf: regexSchema.optional(),
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
export const contextAction = z.object({ type: z.literal("context"), text: z.string().min(1) });
export const toolAction = z.object({
  type: z.literal("tool"),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  /** Regex over the tool output; a match skips the remaining hooks (and the loop on session.start). */
  skipIf: regexSchema.optional(),
  /**
   * Regex over the tool output; a match refuses (blocks) with the output as the reason, and stops
   * the chain (Tailored AI `hooks.on` `denyIf`). Checked before skipIf.
   */
  denyIf: regexSchema.optional(),
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
export type HookActionType = HookAction["type"];
export const ACTION_TYPES = hookActionSchema.options.map((o) => o.shape.type.value) as HookActionType[];

/** Actions that gate: on blocking events their failure blocks unless onFailure says otherwise. */
export const GATING_ACTIONS: ReadonlySet<HookActionType> = new Set(["block", "approve", "command", "webhook", "code", "tool", "limit"]);

export const scopeSchema = z
  .string()
  .regex(/^(global|agent:.+|schedule:.+)$/, 'scope is "global", "agent:<id or name>" or "schedule:<id>"');

const hookIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "id is letters, digits, '_', '-' and '.'");

/** `when`: a dot path that must be truthy, or `path: /regex/` that must match its value. */
export const whenSchema = z.string().min(1).max(500).superRefine(compiles(compileWhen));

/**
 * Whose runtime contract a hook keeps (dialect-contracts.ts): what it receives (stdin, env, body)
 * and how its answer is read. Set by the importer of a foreign dialect; absent = Hookplane's own.
 */
export const HOOK_DIALECTS = ["claude-code", "herdctl", "loom", "tailored-ai", "agentopology", "standard-agents", "codex", "gemini-cli", "copilot", "cursor"] as const;
export type HookDialect = (typeof HOOK_DIALECTS)[number];

export const hookSpecSchema = z.object({
  id: hookIdSchema,
  name: z.string().max(200).optional(),
  event: eventNameSchema,
  scope: scopeSchema.default("global"),
  enabled: z.boolean().default(true),
  mode: z.enum(["enforce", "shadow"]).default("enforce"),
  matcher: z.string().max(1000).superRefine(compiles(compileMatcher)).optional(),
  when: whenSchema.optional(),
  onOutcomes: z.array(z.enum(OUTCOMES)).optional(),
  action: hookActionSchema,
  timeoutMs: durationMs.optional(),
  onFailure: z.enum(["block", "continue"]).optional(),
  dialect: z.enum(HOOK_DIALECTS).optional(),
});
export type HookSpecInput = z.input<typeof hookSpecSchema>;
export type HookSpec = z.infer<typeof hookSpecSchema>;

/**
 * The schema plus the rules that span fields (kept out of `hookSpecSchema` so it stays a plain
 * object others can `.partial()` or `.extend()`). Use this where a whole hook is accepted.
 * Where secrets and URLs may point (secret-placement.ts) is judged here too, not in the schema: a
 * stored hook that breaks those rules must still load and then fail under its onFailure when it
 * fires (a gate blocks), not be skipped as unreadable.
 */
export function parseHookSpec(input: unknown): z.ZodSafeParseResult<HookSpec> {
  const parsed = hookSpecSchema.safeParse(input);
  if (!parsed.success) return parsed;
  const issues = crossFieldIssues(parsed.data);
  if (issues.length === 0) return parsed;
  return { success: false, error: new z.ZodError(issues) } as z.ZodSafeParseResult<HookSpec>;
}

function crossFieldIssues(spec: HookSpec): z.core.$ZodIssue[] {
  const issues: z.core.$ZodIssue[] = [];
  if (spec.action.type === "approve" && !isBlockingEvent(spec.event)) {
    issues.push({
      code: "custom",
      path: ["action", "type"],
      message: `approve can only pause a blocking event (${EVENT_NAMES.filter(isBlockingEvent).join(", ")}), not ${spec.event}`,
      input: spec.action.type,
    });
  }
  if (spec.action.type === "allow" && spec.event !== "tool.pre") {
    issues.push({
      code: "custom",
      path: ["action", "type"],
      message: `allow lets a tool call through without asking: it belongs on tool.pre, not ${spec.event}`,
      input: spec.action.type,
    });
  }
  if (spec.onOutcomes && spec.event !== "session.end") {
    issues.push({
      code: "custom",
      path: ["onOutcomes"],
      message: `onOutcomes filters session.end only; this hook is on ${spec.event}`,
      input: spec.onOutcomes,
    });
  }
  for (const issue of egressIssues(spec.action)) {
    issues.push({ code: "custom", path: ["action", ...issue.path], message: issue.message, input: undefined });
  }
  return issues;
}
