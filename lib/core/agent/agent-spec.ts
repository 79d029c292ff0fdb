/**
 * What an agent is (api.md): shared by the API, the agent form, the importers and the agent loop.
 */
import { z } from "zod";
import { pgIntSchema } from "@/lib/core/safe-input";
import { workspacePathProblem } from "@/lib/core/workspace/workspace-relative";
import { issueFrom } from "@/lib/core/issues";

export const toolCallSchema = z.object({
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
});

const scriptAnswerSchema = z.object({
  /** `{{prompt}}` stands for the run's prompt, so a scripted answer is about what it was asked. */
  text: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  usage: z
    .object({ inputTokens: pgIntSchema.min(0), outputTokens: pgIntSchema.min(0) })
    .optional(),
});

/**
 * One turn of the `scripted` model: what it answers to one model call. `ifError` is played instead
 * when a tool call of the turn before came back as an error (denied by a hook or a person, or
 * failed), so a script can agree with what its hooks did instead of claiming a write that never happened.
 */
export const scriptTurnSchema = scriptAnswerSchema.extend({
  ifError: scriptAnswerSchema.optional(),
});
export type ScriptTurn = z.infer<typeof scriptTurnSchema>;

export const agentNameSchema = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, "name is letters, digits, '_', '-' and '.', starting with a letter or digit");

/**
 * Whether a path segment can name an agent: its id or its name. Anything else names none, and is
 * answered without a query (a NUL in it would be an error of the database's, not a 404).
 */
export function isAgentRef(value: string): boolean {
  return z.uuid().safeParse(value).success || agentNameSchema.safeParse(value).success;
}

export const modelSchema = z
  .string()
  .regex(/^(scripted|openai:.+|anthropic:.+)$/, 'model is "scripted", "openai:<model>" or "anthropic:<model>"');

/** Code hook ids are snake_case, as `defineHook` requires. */
export const codeHookIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, "a code hook id is snake_case: lowercase letters, digits and '_', starting with a letter");
export const codeHookIdsSchema = z.array(codeHookIdSchema).max(100);

/**
 * Days runs (or ledger or audit rows) are kept before retention deletes them: whole UTC days, 0
 * keeping forever (lib/features/retention/README.md).
 */
export const retentionDaysSchema = z
  .number()
  .int("a whole number of days")
  .min(0, "0 keeps forever; otherwise a number of days")
  .max(36_500, "at most 36500 days (100 years); 0 keeps forever");

/** A coding agent's fail modes when Hookplane cannot answer (agents.fail_mode). */
export const FAIL_MODES = ["closed", "open"] as const;
export type FailMode = (typeof FAIL_MODES)[number];

/** The most model calls a Hookplane agent may make in a run (no run is unbounded). */
export const MAX_TURNS_LIMIT = 1000;
/** What an agent gets when it says nothing. */
export const DEFAULT_MAX_TURNS = 20;

export const agentSpecSchema = z.object({
  name: agentNameSchema,
  description: z.string().max(2000).optional(),
  model: modelSchema.default("scripted"),
  instructions: z.string().max(100_000).optional(),
  tools: z.array(z.string().min(1)).default([]),
  maxTurns: z.number().int().min(1).max(MAX_TURNS_LIMIT).default(DEFAULT_MAX_TURNS),
  timeoutMs: z.number().int().min(1000).max(24 * 3600 * 1000).default(600_000),
  budgetUsd: z.number().min(0).optional(),
  dailyBudgetUsd: z.number().min(0).optional(),
  /**
   * Per person, per UTC day, over their coding agents' sessions of this agent (bridged): past it,
   * their next tool call is refused until 00:00 UTC, with the spend in the reason.
   */
  dailyBudgetPerPersonUsd: z.number().min(0).optional(),
  /**
   * What its coding agents' `hookplane` CLI does with a gated call Hookplane cannot answer (down,
   * or failing): "closed" blocks it, "open" lets it through, overriding the CLI's `--fail-open`
   * either way. Left out (or null, which clears it in a PATCH), the CLI decides (closed unless
   * `--fail-open`). Either way the CLI keeps the decision and reports it once Hookplane answers again.
   */
  failMode: z.enum(FAIL_MODES, { error: 'one of "closed" (block what Hookplane cannot answer), "open" (let it through) or null (each CLI decides)' }).nullable().optional(),
  script: z.array(scriptTurnSchema).optional(),
  /** herdctl's metadata file, read from the run's workspace: confined to it, at save and at run time. */
  metadataFile: z.string().min(1).superRefine(issueFrom(workspacePathProblem)).optional(),
  /** Multi-agent flow: names of agents run in sequence, each answer the next one's prompt. */
  flow: z.array(agentNameSchema).optional(),
  /**
   * Standard Agents' hook references: ids of the operator's code hooks (`defineHook` modules in
   * HOOKPLANE_HOOKS_DIR) that run for this agent, in this order. A run's own `codeHooks` overrides it.
   */
  codeHooks: codeHookIdsSchema.optional(),
  /**
   * Tools this agent's runs may run again when a crash or shutdown cut a call short before its
   * result was stored. Every other tool that does not declare itself read-only runs at most once:
   * the model reads "interrupted" instead (lib/agent/README.md, at most once).
   */
  retryTools: z.array(z.string().min(1).max(200)).max(100).optional(),
  /** Days this agent's runs are kept after they finish; left out, the instance default; 0 forever. */
  retentionDays: retentionDaysSchema.optional(),
});
export type AgentSpecInput = z.input<typeof agentSpecSchema>;
export type AgentSpec = z.infer<typeof agentSpecSchema>;

/**
 * PATCH bodies: every field optional and no defaults, so a field left out keeps its stored value.
 * (zod 4 applies an inner default even under `.partial()`, which would reset tools and limits.)
 */
export const agentPatchSchema = z
  .object(
    Object.fromEntries(
      Object.entries(agentSpecSchema.shape).map(([key, field]) => [key, (field instanceof z.ZodDefault ? field.unwrap() : field).optional()]),
    ) as unknown as { [K in keyof typeof agentSpecSchema.shape]: z.ZodOptional<z.ZodType<z.infer<typeof agentSpecSchema>[K]>> },
  )
  .strict();

export const scheduleSpecSchema = z
  .object({
    agent: z.string().min(1),
    name: z.string().max(200).optional(),
    cron: z.string().min(1).optional(),
    intervalMs: pgIntSchema.min(1000).optional(),
    prompt: z.string().min(1),
    enabled: z.boolean().default(true),
  })
  .refine((s) => Boolean(s.cron) !== Boolean(s.intervalMs), {
    message: "give exactly one of cron or intervalMs",
    path: ["cron"],
  });
export type ScheduleSpecInput = z.input<typeof scheduleSpecSchema>;
