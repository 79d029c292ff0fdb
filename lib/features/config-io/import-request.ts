/**
 * The bodies and queries of the config endpoints, shared by the route handlers and the import page.
 */
import { z } from "zod";
import { agentNameSchema } from "@/lib/core/agent/agent-spec";
import { DIALECT_NAMES, EXPORT_DIALECTS } from "@/lib/core/dialects/types";

/** Big enough for any hand-written config, small enough to parse within one request. */
export const MAX_CONFIG_CHARS = 512 * 1024;

export const ON_CONFLICT = ["fail", "skip", "update"] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];

export const importRequestSchema = z
  .object({
    /** Omitted: detected from the content (the response says which and why). */
    dialect: z.enum(DIALECT_NAMES).optional(),
    /** The file's text; Standard Agents also takes `{files: {path: source}}`. */
    content: z.union([
      z.string().min(1, "paste or upload a config").max(MAX_CONFIG_CHARS, `a config is at most ${MAX_CONFIG_CHARS} characters`),
      z.object({ files: z.record(z.string(), z.string().max(MAX_CONFIG_CHARS)) }).strict(),
    ]),
    /** The agent hooks without one of their own belong to (Claude Code settings, Standard Agents). */
    agent: agentNameSchema.optional(),
    /** Only preview: what would be created, updated or skipped; nothing is written. */
    dry: z.boolean().optional(),
    /** The same as `dry`, under the name other APIs use. */
    dryRun: z.boolean().optional(),
    /**
     * What an agent, hook (same id in the same scope) or schedule (same name for the same agent)
     * that already exists means: `fail` (default) answers 409 and writes nothing, `skip` keeps the
     * existing one, `update` replaces it (a hook gets a new version).
     */
    onConflict: z.enum(ON_CONFLICT).default("fail"),
  })
  .strict()
  .refine((body) => body.dry === undefined || body.dryRun === undefined || body.dry === body.dryRun, {
    message: "dry and dryRun say different things; give one of them",
    path: ["dryRun"],
  })
  .transform(({ dryRun, ...body }) => ({ ...body, dry: body.dry ?? dryRun ?? false }));
export type ImportRequest = z.infer<typeof importRequestSchema>;

export const exportQuerySchema = z.object({
  dialect: z.enum(EXPORT_DIALECTS).default("hookplane"),
  /** Hookplane's own format only; the other dialects have one format each. */
  format: z.enum(["yaml", "json"]).default("yaml"),
  agent: agentNameSchema.optional(),
  /** The coding agents' files: bridge the session events even when no hook needs it (recordSessions). */
  sessions: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;
