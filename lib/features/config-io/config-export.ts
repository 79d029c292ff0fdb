/**
 * Exporting the stored config as a file of one dialect: agents, hooks and schedules are read back
 * into the canonical shapes the dialect layer writes (scopes by agent and schedule NAME, so the
 * file means the same thing on another Hookplane), and the dialect's warnings go with the file.
 */
import type { Db } from "@/db/client";
import { agentToSpec, getAgent, listAgents } from "@/db/queries/agents";
import { hookToResource, listHooks } from "@/db/queries/hooks";
import { listSchedules } from "@/db/queries/schedules";
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import { AppError } from "@/lib/platform/api/app-error";
import { DialectExportError, exportConfig, type DialectConfig, type DialectWarning, type ImportedSchedule } from "@/lib/core/dialects";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import type { ExportQuery } from "./import-request";

/** Drops undefined fields, so a written file has no `key: null` noise. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const ALL_AGENTS = 10_000;

/**
 * A project's stored config in canonical form (its own hooks: the instance-wide ones are not the
 * project's to carry elsewhere); hooks whose agent or schedule is gone are reported, not written.
 */
export async function loadDialectConfig(db: Db, projectId: string): Promise<{ config: DialectConfig; warnings: DialectWarning[] }> {
  const warnings: DialectWarning[] = [];
  const agentRows = await listAgents(db, { projectId, limit: ALL_AGENTS });
  const agentName = new Map(agentRows.map((a) => [a.id, a.name]));
  const agents: AgentSpecInput[] = agentRows.map((row) => {
    const { id: _id, createdAt: _c, updatedAt: _u, ...spec } = agentToSpec(row);
    return defined(spec);
  });

  const schedules: ImportedSchedule[] = [];
  const scheduleIndex = new Map<string, ImportedSchedule>();
  for (const row of await listSchedules(db, { projectId })) {
    const agent = agentName.get(row.agentId);
    if (!agent) continue;
    const schedule: ImportedSchedule = defined({
      name: row.name ?? `schedule-${row.id.slice(0, 8)}`,
      agent,
      cron: row.cron ?? undefined,
      intervalMs: row.intervalMs ?? undefined,
      prompt: row.prompt,
      enabled: row.enabled,
    });
    schedules.push(schedule);
    scheduleIndex.set(row.id, schedule);
  }

  const hooks: HookSpecInput[] = [];
  for (const row of await listHooks(db, { projectId, own: true })) {
    const resource = hookToResource(row);
    const spec: HookSpecInput = defined({ ...resource.spec, enabled: resource.enabled });
    const [kind, ref] = [resource.scope.slice(0, resource.scope.indexOf(":")), resource.scope.slice(resource.scope.indexOf(":") + 1)];
    if (resource.scope === "global") hooks.push(spec);
    else if (kind === "agent" && agentName.has(ref)) hooks.push({ ...spec, scope: `agent:${agentName.get(ref)}` });
    else if (kind === "schedule" && scheduleIndex.has(ref)) {
      const schedule = scheduleIndex.get(ref)!;
      (schedule.hooks ??= []).push({ ...spec, scope: `schedule:${schedule.name}` });
    } else {
      warnings.push({ path: `hooks.${resource.key}`, message: `its ${kind} (${ref}) no longer exists; not exported` });
    }
  }
  return { config: { agents, hooks, schedules }, warnings };
}

const FILES: Record<ExportQuery["dialect"], (query: ExportQuery) => { filename: string; contentType: string }> = {
  hookplane: (q) => ({ filename: `hookplane.${q.format}`, contentType: q.format === "json" ? "application/json" : "application/yaml" }),
  "claude-code": () => ({ filename: "settings.json", contentType: "application/json" }),
  herdctl: (q) => ({ filename: `${q.agent ?? "agent"}.yaml`, contentType: "application/yaml" }),
  loom: () => ({ filename: "agent.json", contentType: "application/json" }),
  "tailored-ai": () => ({ filename: "config.yaml", contentType: "application/yaml" }),
  codex: () => ({ filename: "hooks.json", contentType: "application/json" }),
  "gemini-cli": () => ({ filename: "settings.json", contentType: "application/json" }),
  copilot: () => ({ filename: "hookplane.json", contentType: "application/json" }),
  cursor: () => ({ filename: "hooks.json", contentType: "application/json" }),
};

export interface ExportedFile {
  content: string;
  filename: string;
  contentType: string;
  warnings: DialectWarning[];
}

/** The project's config as a file of `query.dialect`. */
export async function exportStoredConfig(db: Db, projectId: string, query: ExportQuery): Promise<ExportedFile> {
  if (query.agent && !(await getAgent(db, { projectId, ref: query.agent }))) throw AppError.notFound(`Agent "${query.agent}"`);
  const { config, warnings } = await loadDialectConfig(db, projectId);
  try {
    const result = exportConfig(query.dialect, config, { agent: query.agent, format: query.format, recordSessions: query.sessions });
    return { content: result.content, ...FILES[query.dialect](query), warnings: [...warnings, ...result.warnings] };
  } catch (error) {
    if (error instanceof DialectExportError) {
      throw new AppError("cannot_export", error.message, [{ path: "agent", message: error.message }]);
    }
    throw error;
  }
}

/**
 * The warnings as one header value: JSON, ASCII only (header values are Latin-1 on the wire), cut
 * to `maxChars` with a last entry saying how many were left out; the whole list is in the count.
 */
export function warningsHeader(warnings: DialectWarning[], maxChars = 6000): string {
  const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  // A header holds a few dozen warnings at most; start near that instead of trimming one by one.
  let kept = Math.min(warnings.length, 100);
  for (;;) {
    const list: DialectWarning[] = warnings.slice(0, kept);
    if (kept < warnings.length) list.push({ path: "", message: `${warnings.length - kept} more warning(s) left out of this header` });
    const text = ascii(JSON.stringify(list));
    if (text.length <= maxChars || kept === 0) return text;
    kept -= 1;
  }
}
