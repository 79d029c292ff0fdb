/**
 * `hookplane install` and `hookplane doctor` (bin/lib/install.cjs, bin/lib/doctor.cjs) on the
 * server: a bridge credential reads its project's agent's settings for one coding agent (the
 * export, with the session events, exactly as `GET /api/v1/config/export` writes it), and records
 * that a machine installed them, with the settings' sha256, so the agent's page shows the machines
 * and which of them drifted from the current export. A bridge credential reaches nothing else
 * (roles.ts): these two are `ingest`-role routes, like the hook calls themselves.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { listAgentInstalls, listAgentsOfInstalls, saveAgentInstall, type AgentInstallRow } from "@/db/queries/agent-installs";
import { agentNameSchema } from "@/lib/core/agent/agent-spec";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { actorKeyOf } from "@/lib/platform/auth/roles";
import { exportStoredConfig } from "./config-export";

export const CODING_AGENTS = ["claude-code", "codex", "gemini-cli", "copilot", "cursor"] as const;
export type CodingAgent = (typeof CODING_AGENTS)[number];
export const INSTALL_LEVELS = ["user", "project", "managed"] as const;

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** An agent's settings for a coding agent, as install writes them (before it pins the CLI's path), and their sha256. */
export async function codingAgentSettings(db: Db, params: { projectId: string; codingAgent: CodingAgent; agent: string }) {
  const file = await exportStoredConfig(db, params.projectId, { dialect: params.codingAgent, format: "json", agent: params.agent, sessions: true });
  return { content: file.content, sha256: sha256(file.content), warnings: file.warnings };
}

const settingsQuerySchema = z.object({ agent: agentNameSchema });

/** `GET /api/v1/ingest/<coding agent>/settings?agent=NAME`: the settings JSON, its sha256 in a header. */
export function settingsRoute(codingAgent: CodingAgent) {
  return apiRoute({ role: "ingest", query: settingsQuerySchema }, async ({ db, principal, query }) => {
    const settings = await codingAgentSettings(db, { projectId: principal.projectId, codingAgent, agent: query.agent });
    return new Response(settings.content, {
      headers: { "content-type": "application/json; charset=utf-8", "x-hookplane-settings-sha256": settings.sha256, "cache-control": "no-store" },
    });
  });
}

const text = (max: number) => z.string().max(max);

export const installRequestSchema = z
  .object({
    agent: agentNameSchema,
    codingAgent: z.enum(CODING_AGENTS),
    level: z.enum(INSTALL_LEVELS),
    settingsPath: text(1000).min(1),
    /** The sha256 of the settings as the settings route served them (before install pinned the CLI's path). */
    settingsSha256: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex"),
    cliVersion: text(100).default(""),
    host: text(200).default(""),
    osUser: text(200).default(""),
  })
  .strict();

/** `POST /api/v1/ingest/installs`: this machine installed an agent's settings (201 with whether they are the current export). */
export const recordInstallRoute = apiRoute({ role: "ingest", body: installRequestSchema }, async ({ db, principal, body }) => {
  const agent = await getAgent(db, { projectId: principal.projectId, ref: body.agent });
  if (!agent) throw AppError.notFound(`Agent "${body.agent}"`);
  const row = await saveAgentInstall(db, {
    projectId: principal.projectId,
    agentId: agent.id,
    actorKey: actorKeyOf(principal),
    actorLabel: principal.email ?? principal.label,
    codingAgent: body.codingAgent,
    host: body.host,
    osUser: body.osUser,
    cliVersion: body.cliVersion,
    level: body.level,
    settingsPath: body.settingsPath,
    settingsSha256: body.settingsSha256,
  });
  const current = await codingAgentSettings(db, { projectId: principal.projectId, codingAgent: body.codingAgent, agent: agent.name });
  return Response.json({ id: row.id, installedAt: row.installedAt, current: current.sha256 === row.settingsSha256 }, { status: 201 });
});

export type AgentInstall = AgentInstallRow & { drifted: boolean };

/** The machines that installed an agent, each flagged when its settings are not the current export's. */
export async function listAgentInstallsWithDrift(db: Db, params: { projectId: string; agentId: string; agentName: string }): Promise<AgentInstall[]> {
  const rows = await listAgentInstalls(db, params);
  const current = new Map<string, string | undefined>();
  for (const codingAgent of new Set(rows.map((r) => r.codingAgent))) {
    if (!(CODING_AGENTS as readonly string[]).includes(codingAgent)) continue;
    try {
      current.set(codingAgent, (await codingAgentSettings(db, { projectId: params.projectId, codingAgent: codingAgent as CodingAgent, agent: params.agentName })).sha256);
    } catch {
      current.set(codingAgent, undefined); // cannot be exported now: not called drifted for it
    }
  }
  return rows.map((row) => {
    const now = current.get(row.codingAgent);
    return { ...row, drifted: now !== undefined && now !== row.settingsSha256 };
  });
}

/** How many machines' installed settings are not the current export (the `settings_drift` alert). */
export async function countDriftedInstalls(db: Db, params: { projectId: string; agentId?: string | null }): Promise<number> {
  const agents = await listAgentsOfInstalls(db, params);
  let drifted = 0;
  for (const agent of agents) {
    drifted += (await listAgentInstallsWithDrift(db, { projectId: params.projectId, agentId: agent.id, agentName: agent.name })).filter((i) => i.drifted).length;
  }
  return drifted;
}
