/**
 * The hook spec: what a stored, imported or API-submitted hook looks like (hook-model.md).
 * The same schema validates the API body, the editor form and imported configs, so an error
 * reads the same everywhere.
 */
import { z } from "zod";
import { EVENT_NAMES, OUTCOMES, isBlockingEvent, nearestName, type EventName } from "./events";
import { DETECTOR_READS } from "../detectors/detector-names";
import { durationMs, hookActionSchema, isDenyIfDetects } from "./hook-actions";
import { compileMatcher } from "./matcher";
import { egressIssues } from "./secret-placement";
import { compileWhen } from "./when";
import { RUNS_ON } from "./runs-on";

// The actions have their own module, so secret-placement.ts (which this spec calls) can read their
// type without importing the spec: their names stay importable from here.
export * from "./hook-actions";

export const eventNameSchema = z.string().superRefine((value, ctx) => {
  if ((EVENT_NAMES as string[]).includes(value)) return;
  const hint = nearestName(value, EVENT_NAMES);
  ctx.addIssue({
    code: "custom",
    message: `unknown event "${value}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${EVENT_NAMES.join(", ")})`,
  });
}) as unknown as z.ZodType<EventName>;

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

export const scopeSchema = z
  .string()
  .regex(
    /^(global|agent:.+|schedule:.+|group:.+|person:.+)$/,
    'scope is "global", "agent:<id or name>", "schedule:<id>", "group:<single sign-on group>" or "person:<email or user id>"',
  );

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
  /**
   * Where it runs (runs-on.ts): `agent` is the machine the agent runs on (a coding agent's command
   * hook, kept in its installed settings); absent or `server` is Hookplane's server.
   */
  runsOn: z.enum(RUNS_ON).optional(),
  /**
   * A person's `allow` rule that wins over broader denies (docs/hook-model.md, Precedence): for the
   * calls it matches, the block and approve hooks of every other scope are waived. Only an admin
   * may set it.
   */
  exception: z.boolean().optional(),
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

/** What a `modify` hook may change depends on its event: the input before a call, the output after it. */
function modifyIssues(spec: HookSpec): z.core.$ZodIssue[] {
  const action = spec.action;
  if (action.type !== "modify") return [];
  const issue = (path: string, message: string): z.core.$ZodIssue => ({ code: "custom", path: ["action", path], message, input: undefined });
  if (action.input === undefined && action.output === undefined && action.redact === undefined) {
    return [issue("type", "modify needs input (a merge patch, on tool.pre), output or redact (on tool.post)")];
  }
  const issues: z.core.$ZodIssue[] = [];
  if (action.input !== undefined && spec.event !== "tool.pre") issues.push(issue("input", `input rewrites a tool call before it runs: it belongs on tool.pre, not ${spec.event}`));
  for (const field of ["output", "redact"] as const) {
    if (action[field] !== undefined && spec.event !== "tool.post") issues.push(issue(field, `${field} changes what a tool returned: it belongs on tool.post, not ${spec.event}`));
  }
  if (action.output !== undefined && action.redact !== undefined) issues.push(issue("redact", "give output (a replacement) or redact (patterns), not both"));
  return issues;
}

/** Which verdicts a detect hook can have on which event: what can still be stopped or changed there. */
const DETECT_EVENTS: Record<string, readonly string[]> = {
  "tool.pre": ["block", "ask", "record"],
  "tool.post": ["redact", "record"],
  "user.prompt.submit": ["block", "record"],
};

function detectIssues(spec: HookSpec): z.core.$ZodIssue[] {
  if (spec.action.type !== "detect") return [];
  const verdicts = DETECT_EVENTS[spec.event];
  if (!verdicts) {
    return [{ code: "custom", path: ["action", "type"], message: `detect reads a tool call (tool.pre), its output (tool.post) or a prompt (user.prompt.submit), not ${spec.event}`, input: spec.action.type }];
  }
  if (!verdicts.includes(spec.action.verdict)) {
    return [{ code: "custom", path: ["action", "verdict"], message: `on ${spec.event} a detect hook can ${verdicts.join(" or ")}, not ${spec.action.verdict}`, input: spec.action.verdict }];
  }
  return [];
}

/**
 * Detectors a `denyIf` may name: what they read must be there. A tool hook's denyIf reads its tool's
 * output, which only the text detectors read (no shell command, no call of the session's); a block
 * hook's reads the call as a detect hook does: the shell command and the session's history before
 * it runs (tool.pre), text on tool.pre, tool.post and user.prompt.submit.
 */
function denyIfIssues(spec: HookSpec): z.core.$ZodIssue[] {
  const action = spec.action;
  if ((action.type !== "block" && action.type !== "tool") || !isDenyIfDetects(action.denyIf)) return [];
  const detects = action.denyIf.detects;
  const at = (i: number, message: string): z.core.$ZodIssue => ({ code: "custom", path: ["action", "denyIf", "detects", i], message, input: detects[i] });
  if (action.type === "tool") {
    return detects.flatMap((name, i) =>
      DETECTOR_READS[name] === "text" ? [] : [at(i, `${name} reads ${DETECTOR_READS[name] === "session" ? "the session's calls" : "a shell command"}, not text: a tool hook's denyIf reads its tool's output (name secrets, pii or injection)`)],
    );
  }
  if (!DETECT_EVENTS[spec.event]) {
    return [{ code: "custom", path: ["action", "denyIf"], message: `denyIf's detectors read a tool call (tool.pre), its output (tool.post) or a prompt (user.prompt.submit), not ${spec.event}`, input: action.denyIf }];
  }
  return detects.flatMap((name, i) =>
    DETECTOR_READS[name] === "text" || spec.event === "tool.pre" ? [] : [at(i, `${name} reads a tool call before it runs (tool.pre): on ${spec.event} it has nothing to read`)],
  );
}

function crossFieldIssues(spec: HookSpec): z.core.$ZodIssue[] {
  const issues: z.core.$ZodIssue[] = [];
  issues.push(...denyIfIssues(spec));
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
  issues.push(...modifyIssues(spec));
  if (spec.action.type === "ask" && spec.event !== "tool.pre") {
    issues.push({ code: "custom", path: ["action", "type"], message: `ask has the agent ask its user before a tool call: it belongs on tool.pre, not ${spec.event}`, input: spec.action.type });
  }
  issues.push(...detectIssues(spec));
  if (spec.exception && (spec.action.type !== "allow" || !spec.scope.startsWith("person:"))) {
    issues.push({
      code: "custom",
      path: ["exception"],
      message: 'an exception is a person\'s allow rule: scope "person:<email or user id>", action allow, event tool.pre',
      input: spec.exception,
    });
  }
  if (spec.runsOn === "agent" && spec.action.type !== "command") {
    issues.push({
      code: "custom",
      path: ["runsOn"],
      message: `only a command hook runs on the agent's machine (from its installed settings); a ${spec.action.type} hook runs on the server`,
      input: spec.runsOn,
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
