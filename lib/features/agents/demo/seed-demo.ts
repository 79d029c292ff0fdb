/**
 * First start only: seeds the demo agents and their hooks. Marked in `settings` so a person who
 * deletes a demo agent does not see it come back on the next restart. They go into the default
 * project, where the first admin starts.
 */
import type { Db } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { DEFAULT_PROJECT_ID, settings } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { DEMO_AGENTS } from "./demo-agents";

const SEEDED_KEY = "demo_seeded";

export async function seedDemoData(db: Db): Promise<boolean> {
  const claimed = await db.insert(settings).values({ key: SEEDED_KEY, value: true }).onConflictDoNothing().returning();
  if (claimed.length === 0) return false;
  for (const demo of DEMO_AGENTS) {
    const agent = await createAgent(db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse(demo.agent) });
    if (!agent) continue;
    for (const hook of demo.hooks) {
      await createHook(db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...hook, scope: `agent:${agent.id}` }), actor: "system:seed" });
    }
  }
  return true;
}
