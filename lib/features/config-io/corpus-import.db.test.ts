/**
 * The dialect corpus (test/fixtures/dialects, see its README) through the config endpoints, on
 * PGlite or on the PostgreSQL of DATABASE_URL: every real file imports (201), its agents and hooks
 * are stored as its expected.yaml says (settings the file left out get Hookplane's defaults when
 * stored), and the stored agent exported back to herdctl or Loom passes that framework's own schema.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { installDatabase } from "@/db/client";
import { agentToSpec, getAgent } from "@/db/queries/agents";
import { hookToResource, listHooks } from "@/db/queries/hooks";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { callRoute } from "@/test/api-client";
import type { DialectConfig } from "@/lib/core/dialects";
import { parseHookSpec, type HookSpecInput } from "@/lib/core/hooks/spec";
import { AgentConfigSchema } from "@/test/framework-schemas/herdctl/schema";
import { ProfileSchema } from "@/test/framework-schemas/loom/schema";
import * as exportRoute from "@/app/api/v1/config/export/route";
import * as importRoute from "@/app/api/v1/config/import/route";
import { addPerson, addToken, DEFAULT_PROJECT_ID } from "@/test/people";

/** The coding agents whose command hooks ran on the developer's machine, and keep running there. */
const CODING_AGENTS = new Set(["claude-code", "codex", "gemini-cli", "copilot", "cursor"]);

const ROOT = path.join(import.meta.dirname, "../../../test/fixtures/dialects");
/** `file`: the configuration file's name in a case folder (the first that exists). */
const FILES: Record<string, { file: string[]; parse: (text: string) => Record<string, unknown> }> = {
  herdctl: { file: ["agent.yaml"], parse: (t) => parseYaml(t) },
  loom: { file: ["agent.json"], parse: (t) => JSON.parse(t) },
  "tailored-ai": { file: ["config.yaml"], parse: (t) => parseYaml(t) },
  agentopology: { file: ["topology.at"], parse: () => ({}) },
  "claude-code": { file: ["settings.json", "hooks.json"], parse: () => ({}) },
};
const VALIDATE: Partial<Record<string, (content: string) => unknown>> = {
  herdctl: (content) => AgentConfigSchema.parse(parseYaml(content)),
  loom: (content) => ProfileSchema.parse(JSON.parse(content)),
};

let t: TestDatabase;
let admin: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: (await addPerson(t.db, { email: "admin@example.com", instanceAdmin: true })).id })).token;
});
afterAll(async () => {
  await t.drop();
});

const cases = (dialect: string) =>
  readdirSync(path.join(ROOT, dialect), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("_"))
    .map((e) => e.name);

/** Stored hooks by `scope/id`, scopes written with agent names as an importer writes them. */
async function storedHooks(): Promise<Map<string, unknown>> {
  const stored = new Map<string, unknown>();
  for (const row of await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })) {
    const { spec } = hookToResource(row);
    let scope = spec.scope;
    if (scope.startsWith("agent:")) scope = `agent:${(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: scope.slice(6) }))!.name}`;
    stored.set(`${scope}/${spec.id}`, { ...spec, scope });
  }
  return stored;
}

describe.each(Object.keys(FILES))("corpus through the import endpoint: %s", (dialect) => {
  const { file, parse } = FILES[dialect];

  test.each(cases(dialect))("%s", async (name) => {
    const dir = path.join(ROOT, dialect, name);
    const content = readFileSync(path.join(dir, file.find((f) => existsSync(path.join(dir, f)))!), "utf8");
    const expected = parseYaml(readFileSync(path.join(dir, "expected.yaml"), "utf8")) as DialectConfig;
    const source = parse(content);

    const imported = await callRoute(importRoute.POST, { method: "POST", token: admin, body: { dialect, content, onConflict: "update" } });
    expect(imported.status, JSON.stringify(imported.body.error)).toBe(201);

    for (const agent of expected.agents) {
      const from = (agent.instructions as unknown as { from?: string } | undefined)?.from;
      const want = from === undefined ? agent : { ...agent, instructions: source[from] };
      const row = await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: agent.name });
      expect(row, agent.name).toBeDefined();
      expect(agentToSpec(row!)).toMatchObject(want);
    }
    const stored = await storedHooks();
    for (const hook of expected.hooks as HookSpecInput[]) {
      // Stored with the dialect it came from: it keeps that framework's runtime contract.
      // A coding agent's command hook keeps running on the developer's machine (runs-on.ts).
      const runsOn = CODING_AGENTS.has(dialect) && hook.action.type === "command" ? { runsOn: "agent" as const } : {};
      expect(stored.get(`${hook.scope}/${hook.id}`), hook.id).toEqual(parseHookSpec({ ...hook, dialect, ...runsOn }).data);
    }

    const validate = VALIDATE[dialect];
    if (validate) {
      const agent = expected.agents[0].name;
      const response = await exportRoute.GET(
        new Request(`http://localhost/api/v1/config/export?dialect=${dialect}&agent=${agent}`, { headers: { authorization: `Bearer ${admin}` } }),
      );
      expect(response.status).toBe(200);
      validate(await response.text());
    }
  });
});
