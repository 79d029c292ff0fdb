/**
 * The server half of `npm run bench:bridge`: the real ingest route handlers over node:http on a
 * fresh database (in-memory PGlite, or a new database on DATABASE_URL), an agent with no hooks
 * (the allow path) and an operator token. Prints one JSON line {url, token, agent}, then serves
 * until killed.
 */
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createTestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startRouteServer } from "@/lib/platform/api/route-server";
import { callRoute } from "@/test/api-client";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as codexRoute from "@/app/api/v1/ingest/codex/route";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";
import * as cursorRoute from "@/app/api/v1/ingest/cursor/route";
import * as geminiRoute from "@/app/api/v1/ingest/gemini-cli/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPersonToken } from "@/test/people";

async function main() {
  const t = await createTestDatabase();
  installDatabase(t);
  const token = (await addPersonToken(t.db, { role: "operator", name: "bridge" })).token;
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "bench-agent" }) });
  const server = await startRouteServer([
    { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
    { method: "POST", path: "/api/v1/ingest/codex", handler: codexRoute.POST },
    { method: "POST", path: "/api/v1/ingest/gemini-cli", handler: geminiRoute.POST },
    { method: "POST", path: "/api/v1/ingest/copilot", handler: copilotRoute.POST },
    { method: "POST", path: "/api/v1/ingest/cursor", handler: cursorRoute.POST },
  ]);
  process.stdout.write(`${JSON.stringify({ url: server.url, token, agent: "bench-agent" })}\n`);
  const shutdown = async () => {
    await server.close();
    await t.drop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGINT", () => void shutdown());
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
