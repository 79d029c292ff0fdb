import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { agentInstalls, agents } from "../schema";

export type AgentInstallRow = typeof agentInstalls.$inferSelect;
export type NewAgentInstall = Omit<typeof agentInstalls.$inferInsert, "id" | "installedAt">;

/** Records an install; the same person, machine, coding agent and settings file updates its row. */
export async function saveAgentInstall(db: Db, install: NewAgentInstall): Promise<AgentInstallRow> {
  const [row] = await db
    .insert(agentInstalls)
    .values(install)
    .onConflictDoUpdate({
      target: [agentInstalls.agentId, agentInstalls.actorKey, agentInstalls.codingAgent, agentInstalls.host, agentInstalls.osUser, agentInstalls.settingsPath],
      set: {
        actorLabel: install.actorLabel,
        cliVersion: install.cliVersion,
        level: install.level,
        settingsSha256: install.settingsSha256,
        installedAt: new Date(),
      },
    })
    .returning();
  return row!;
}

/** The machines that installed an agent, newest first. */
export async function listAgentInstalls(db: Db, params: { projectId: string; agentId: string; limit?: number }): Promise<AgentInstallRow[]> {
  return db
    .select()
    .from(agentInstalls)
    .where(and(eq(agentInstalls.projectId, params.projectId), eq(agentInstalls.agentId, params.agentId)))
    .orderBy(desc(agentInstalls.installedAt))
    .limit(params.limit ?? 100);
}

/** The agents that machines installed, in a project (or the one agent): those whose installs may drift. */
export async function listAgentsOfInstalls(db: Db, params: { projectId: string; agentId?: string | null }): Promise<{ id: string; name: string }[]> {
  return db
    .selectDistinct({ id: agents.id, name: agents.name })
    .from(agentInstalls)
    .innerJoin(agents, eq(agents.id, agentInstalls.agentId))
    .where(and(eq(agentInstalls.projectId, params.projectId), params.agentId ? eq(agentInstalls.agentId, params.agentId) : undefined));
}
