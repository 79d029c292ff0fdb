import { and, asc, eq, gt, or } from "drizzle-orm";
import type { AgentSpec } from "@/lib/core/agent/agent-spec";
import { fieldsOf } from "@/lib/core/null-fields";
import type { Db } from "../client";
import { agents } from "../schema";
import { deleteInProject, findInProject } from "./project-rows";

export type AgentRow = typeof agents.$inferSelect;

/** Whether an agent reference may be an id (then it names the agent of that id or that name). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Columns from a validated spec; undefined optional fields become NULL so edits can clear them. */
const OPTIONAL_FIELDS = ["description", "instructions", "budgetUsd", "dailyBudgetUsd", "dailyBudgetPerPersonUsd", "failMode", "script", "metadataFile", "flow", "codeHooks", "retryTools", "retentionDays"] as const;

function toColumns(spec: Partial<AgentSpec>, replace = false) {
  const columns: Partial<typeof agents.$inferInsert> = {};
  if (replace) for (const key of OPTIONAL_FIELDS) (columns as Record<string, unknown>)[key] = null;
  for (const [key, value] of Object.entries(spec)) {
    (columns as Record<string, unknown>)[key] = value === undefined ? null : value;
  }
  return columns;
}

export function agentToSpec(row: AgentRow): AgentSpec & { id: string; createdAt: Date; updatedAt: Date } {
  return {
    ...fieldsOf(row, ["id", "name", "description", "model", "instructions", "tools", "maxTurns", "timeoutMs", "budgetUsd", "dailyBudgetUsd", "dailyBudgetPerPersonUsd", "failMode"]),
    script: (row.script as AgentSpec["script"]) ?? undefined,
    ...fieldsOf(row, ["metadataFile", "flow", "codeHooks", "retryTools", "retentionDays", "createdAt", "updatedAt"]),
  };
}

/** A project's agents by name (every lookup names the project: another project's agents are not there). */
export async function listAgents(db: Db, params: { projectId: string; limit: number; afterName?: string }) {
  return db
    .select()
    .from(agents)
    .where(and(eq(agents.projectId, params.projectId), params.afterName ? gt(agents.name, params.afterName) : undefined))
    .orderBy(asc(agents.name))
    .limit(params.limit);
}

/** The agent a reference names: its id or its name (api.md: the name is usable in place of the id). */
export function agentRefMatch(ref: string) {
  return UUID.test(ref) ? or(eq(agents.id, ref), eq(agents.name, ref)) : eq(agents.name, ref);
}

/** The project's agent a reference names; undefined for another project's (the caller answers 404). */
export async function getAgent(db: Db, params: { projectId: string; ref: string }) {
  const [row] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.projectId, params.projectId), agentRefMatch(params.ref)));
  return row;
}

/** Names are unique in a project only: the project is part of the name. */
export async function getAgentByName(db: Db, params: { projectId: string; name: string }) {
  return findInProject(db, agents, params.projectId, eq(agents.name, params.name));
}

/** Undefined when the project has an agent of that name already. */
export async function createAgent(db: Db, params: { projectId: string; spec: AgentSpec }) {
  const [row] = await db
    .insert(agents)
    .values({ ...(toColumns(params.spec) as typeof agents.$inferInsert), projectId: params.projectId })
    .onConflictDoNothing({ target: [agents.projectId, agents.name] })
    .returning();
  return row;
}

/** `replace` clears optional fields the patch leaves out (the edit form sends the whole agent). */
export async function updateAgent(db: Db, params: { projectId: string; id: string; patch: Partial<AgentSpec>; replace?: boolean }) {
  const [row] = await db
    .update(agents)
    .set({ ...toColumns(params.patch, params.replace), updatedAt: new Date() })
    .where(and(eq(agents.projectId, params.projectId), eq(agents.id, params.id)))
    .returning();
  return row;
}

export async function deleteAgent(db: Db, params: { projectId: string; id: string }) {
  return deleteInProject(db, agents, params.projectId, eq(agents.id, params.id));
}
