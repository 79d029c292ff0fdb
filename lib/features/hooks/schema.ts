/**
 * What the hooks feature takes and answers, declared once. Its answers as the server builds them:
 * a hook as db/queries/hooks.ts `hookToResource` makes it with its enforcement (hook-enforcement.ts),
 * its versions as `listHookVersions` selects them, and a trial's, a replay's and the samples'
 * results; the pages and the browser read these types. Its inputs: the request bodies and queries of
 * the hooks API and the server actions' fields. A hook body is `hookSpecSchema` (lib/core) plus its
 * cross-field rules (`parseHookSpec`), so an error reads the same in the API, the editor and the importers.
 */
import { z } from "zod";
import type { listRecentEvents } from "@/db/queries/event-samples";
import type { listHookVersions } from "@/db/queries/hooks";
import type { Json } from "@/lib/platform/api/json";
import { listQuerySchema } from "@/lib/platform/api/list-query";
import { pgIntSchema, unsafeTextReason } from "@/lib/core/safe-input";
import { EVENT_NAMES } from "@/lib/core/hooks/events";
import { eventNameSchema, hookSpecSchema, parseHookSpec, scopeSchema } from "@/lib/core/hooks/spec";
import type { withEnforcement } from "./hook-enforcement";
import type { HookHealthView } from "./hook-health-view";
import type { replayHook } from "./hook-replay";
import type { tryHooks } from "./hook-trial";

/**
 * A hook as GET /api/v1/hooks lists it and GET /api/v1/hooks/{id} answers: the resource with
 * `enforcement`, whether it can do what it says on this server.
 */
export type HookResponse = Json<ReturnType<typeof withEnforcement>>;

/** A hook as the pages list it (the hooks list, an agent's hooks and chain): the response with its health over the window. */
export type HookListItem = HookResponse & { health?: HookHealthView };

/** One version of a hook, newest first (GET /api/v1/hooks/{id}/versions `items`, and the hook page's history). */
export type HookVersionResponse = Json<Awaited<ReturnType<typeof listHookVersions>>[number]>;

/** One recorded event to try a hook against (GET /api/v1/hooks/test/samples `items`). */
export type HookSampleResponse = Json<Awaited<ReturnType<typeof listRecentEvents>>[number]>;

/** What trying hooks on an event would do (POST /api/v1/hooks/test): the verdict, output and ledger. */
export type HookTrialResponse = Json<Awaited<ReturnType<typeof tryHooks>>>;

/** Where a draft hook would have decided otherwise over the last runs of one agent or of the project (POST /api/v1/hooks/replay). */
export type HookReplayResponse = Json<Awaited<ReturnType<typeof replayHook>>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Re-reports issues found outside zod's own pass at their original paths. */
function reportIssues(ctx: z.RefinementCtx, issues: readonly z.core.$ZodIssue[]) {
  for (const issue of issues) ctx.addIssue({ code: "custom", message: issue.message, path: [...issue.path] });
}

/** A whole hook (POST, and the editor's save). */
export const hookBodySchema = z.unknown().transform((value, ctx) => {
  const parsed = parseHookSpec(value);
  if (parsed.success) return parsed.data;
  reportIssues(ctx, parsed.error.issues);
  return z.NEVER;
});

export const HOOK_FIELDS = Object.keys(hookSpecSchema.shape);

/**
 * PATCH: any subset of a hook's fields; `null` clears an optional one. `action` is replaced whole,
 * since its fields depend on its type. The merged hook is validated as a whole.
 */
export const hookPatchSchema = z.record(z.string(), z.unknown()).superRefine((patch, ctx) => {
  for (const key of Object.keys(patch)) {
    if (!HOOK_FIELDS.includes(key)) {
      ctx.addIssue({ code: "custom", path: [key], message: `unknown field "${key}" (a hook has ${HOOK_FIELDS.join(", ")})` });
    }
  }
});
export type HookPatch = z.infer<typeof hookPatchSchema>;

/** `instance=true` in a query: the instance-wide hooks (lists), or make one (POST, instance admins). */
const instanceFlagSchema = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .optional();

export const hookOwnerQuerySchema = z.object({ instance: instanceFlagSchema });

/**
 * The hooks list pages by (owner rank, scope rank, scope, position, id): the last row's, as
 * `hookListKey` gives it (instance-wide hooks first).
 */
const hookListKeySchema = z.tuple([
  z.number().int().min(0).max(1),
  pgIntSchema,
  z.string().max(200).refine((s) => !unsafeTextReason(s)),
  pgIntSchema,
  z.string().regex(UUID),
]);

export const hookListQuerySchema = listQuerySchema(hookListKeySchema).extend({
  scope: scopeSchema.optional(),
  event: eventNameSchema.optional(),
  /** true: only the instance-wide hooks; false: only the project's own; absent: both. */
  instance: instanceFlagSchema,
});

/** Newest first; the cursor is the last version number seen. */
export const hookVersionsQuerySchema = listQuerySchema(z.number().int().min(1).max(2_147_483_647));

export const restoreHookSchema = z.object({ version: pgIntSchema.min(1) }).strict();

export const reorderHooksSchema = z
  .object({
    scope: scopeSchema,
    /** The instance-wide hooks' order (instance admins), not the project's. */
    instance: z.boolean().optional(),
    ids: z.array(z.string().regex(UUID, "each id is a hook's uuid (the `id` of GET /api/v1/hooks)")).min(1),
  })
  .strict()
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.ids.forEach((id, index) => {
      if (seen.has(id)) ctx.addIssue({ code: "custom", path: ["ids", index], message: `${id} is listed twice` });
      seen.add(id);
    });
  });
export type ReorderHooksRequest = z.infer<typeof reorderHooksSchema>;

export const killSwitchSchema = z.object({ enabled: z.boolean() }).strict();

/** GET /api/v1/hooks/test/samples: recorded events of a type, of one agent's runs if named. */
export const hookSamplesQuerySchema = z.object({
  event: z.enum(EVENT_NAMES as [string, ...string[]]),
  agent: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** POST /api/v1/hooks/test: one hook or several, and the event to try them on. */
export const hookTrialSchema = z
  .object({
    hook: hookSpecSchema.optional(),
    hooks: z.array(hookSpecSchema).min(1).max(100).optional(),
    event: z
      .object({
        type: z.enum(EVENT_NAMES as [string, ...string[]]),
        agentName: z.string().optional(),
        agentId: z.string().optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
        vars: z.record(z.string(), z.string()).optional(),
      })
      .catchall(z.unknown()),
  })
  .refine((body) => Boolean(body.hook) !== Boolean(body.hooks), { message: "give either hook or hooks", path: ["hook"] });
export type HookTrialRequest = z.infer<typeof hookTrialSchema>;

/**
 * POST /api/v1/hooks/replay: a draft hook, the agent whose runs it replays over (left out: every
 * agent of the project, unless the hook is scoped to one), how many of them (the newest), and
 * optionally the window they started in (`since` inclusive, `until` exclusive).
 */
export const hookReplaySchema = z
  .object({
    hook: hookSpecSchema,
    agent: z.string().min(1).optional(),
    runs: z.number().int().min(1).max(200).default(20),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((body) => !body.since || !body.until || Date.parse(body.since) < Date.parse(body.until), { message: "since must be before until", path: ["until"] });
export type HookReplayRequest = z.infer<typeof hookReplaySchema>;

/** The server actions on one hook (delete): its uuid, from the form. */
export const hookRefSchema = z.object({ id: z.string() });

/** The list's switch: turn a hook on or off. */
export const setHookEnabledSchema = z.object({ id: z.string(), enabled: z.boolean() });

/** The list's arrows: one place up or down among the hooks shown (`visibleIds`, when filtered). */
export const moveHookSchema = z.object({ id: z.string(), direction: z.enum(["up", "down"]), visibleIds: z.array(z.string()).max(1000).optional() });

/** The history's restore: make an old version current again, as a new version. */
export const restoreHookVersionActionSchema = z.object({ id: z.string(), version: pgIntSchema.min(1) });
