/**
 * The request bodies and queries of the hooks API, shared by the route handlers and the server
 * actions. A hook body is `hookSpecSchema` plus its cross-field rules (`parseHookSpec`), so an
 * error reads the same in the API, the editor and the importers.
 */
import { z } from "zod";
import { listQuerySchema } from "@/lib/platform/api/list-query";
import { pgIntSchema, unsafeTextReason } from "@/lib/core/safe-input";
import { eventNameSchema, hookSpecSchema, parseHookSpec, scopeSchema } from "@/lib/core/hooks/spec";

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
