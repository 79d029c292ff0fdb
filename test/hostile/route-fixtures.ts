/**
 * A small world for the hostile-input suite: users and tokens of each role, an agent with a
 * hook, a schedule, a run with an event and a pending approval, a secret; and for each route a
 * valid example body or query, so a mutation reaches past the first check into the handler.
 * A route without an example here is still fuzzed, from its schema and with raw bodies.
 */
import { createAgent } from "@/db/queries/agents";
import { createAlertRule } from "@/db/queries/alerts";
import { getOrCreateApproval } from "@/db/queries/approvals";
import { createHook } from "@/db/queries/hooks";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { appendRunEvents } from "@/db/queries/run-events";
import { createRun, finishRun } from "@/db/queries/runs";
import { createSchedule } from "@/db/queries/schedules";
import type { TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { issueApiToken, setupFirstAdmin, signIn } from "@/lib/platform/auth/account-service";
import type { Principal } from "@/lib/platform/auth/roles";
import { createUserAudited } from "@/lib/platform/auth/user-service";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { putSecretAudited } from "@/lib/features/secrets/secret-store";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { createProviderAudited } from "@/lib/features/sso/provider-service";
import { providerCreateSchema } from "@/lib/features/sso/provider-schema";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

export interface HostileWorld {
  tokens: { admin: string; operator: string; viewer: string };
  /** A browser session of the admin (for the server actions). */
  adminSession: string;
  ids: { agent: string; hook: string; schedule: string; run: string; approval: string; token: string; user: string; provider: string; alert: string };
  /** What DELETE routes get as their valid id: deleting it must not take the rest of the world along. */
  doomed: { agent: string; hook: string; schedule: string; token: string; secret: string; provider: string; alert: string; run: string };
  agentName: string;
  secretName: string;
}

const BLOCK_HOOK = { id: "fuzz-block", scope: "global", event: "tool.pre", matcher: "^fuzz-never$", action: { type: "block", reason: "fuzz" } };

export async function buildHostileWorld(t: TestDatabase): Promise<HostileWorld> {
  const { token: admin, user } = await setupFirstAdmin(t.db, { email: "admin@example.com", password: "password123" });
  const principal: Principal = { kind: "user", id: user.id, userId: user.id, label: user.email, role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true };
  const operator = (await issueApiToken(t.db, { name: "op", role: "operator", userId: user.id, actor: user.email })).token;
  const viewerRow = await issueApiToken(t.db, { name: "view", role: "viewer", userId: user.id, actor: user.email });
  const other = await createUserAudited(t.db, principal, { email: "viewer@example.com", password: "password123", role: "viewer" });
  const { sessionToken } = await signIn(t.db, { email: "admin@example.com", password: "password123", address: "127.0.0.1" });
  await seedPricesIfEmpty(t.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });

  const agentName = "fuzz-agent";
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: agentName, script: [{ text: "ok" }] }) }))!;
  const hook = (await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse(BLOCK_HOOK), actor: "fuzz" }))!;
  const schedule = await createSchedule(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, name: "fuzz-schedule", intervalMs: 3_600_000, prompt: "p", enabled: false });
  const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "=cmd|' /C calc'!A0", source: "api", createdBy: "fuzz" });
  await appendRunEvents(t.db, { runId: run.id, events: [{ type: "tool.pre", data: { toolName: "shell", toolCallId: "c1" } }] });
  const { row: approval } = await getOrCreateApproval(t.db, { runId: run.id, hookKey: "fuzz-approve", toolName: "shell", toolInput: {}, toolCallId: "c1", onTimeout: "deny", expiresAt: null });
  const secretName = "FUZZ_SECRET";
  await putSecretAudited(t.db, getSecretBox(), principal, { name: secretName, value: "sealed" });
  const doomedAgent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "doomed-agent" }) }))!;
  const doomedHook = (await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...BLOCK_HOOK, id: "doomed-hook" }), actor: "fuzz" }))!;
  const doomedSchedule = await createSchedule(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: doomedAgent.id, name: "doomed", intervalMs: 3_600_000, prompt: "p", enabled: false });
  const doomedToken = await issueApiToken(t.db, { name: "doomed", role: "viewer", userId: user.id, actor: user.email });
  await putSecretAudited(t.db, getSecretBox(), principal, { name: "DOOMED_SECRET", value: "sealed" });
  const provider = (name: string) => providerCreateSchema.parse({ name, issuer: "https://idp.example.com", clientId: "fuzz", clientSecret: "fuzz secret" });
  const ssoProvider = await createProviderAudited(t.db, getSecretBox(), principal, provider("Fuzz IdP"));
  const doomedProvider = await createProviderAudited(t.db, getSecretBox(), principal, provider("Doomed IdP"));
  const alertRule = { kind: "cost" as const, windowMinutes: 60, threshold: 5, cooldownMinutes: 60, targets: [], enabled: false };
  const alert = (await createAlertRule(t.db, { ...alertRule, projectId: DEFAULT_PROJECT_ID, name: "fuzz-alert", agentId: agent.id }))!;
  const doomedAlert = (await createAlertRule(t.db, { ...alertRule, projectId: DEFAULT_PROJECT_ID, name: "doomed-alert" }))!;
  const doomedRun = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: doomedAgent.id, prompt: "doomed", source: "api" });
  await finishRun(t.db, { id: doomedRun.id, outcome: "completed" });
  return {
    tokens: { admin, operator, viewer: viewerRow.token },
    adminSession: sessionToken,
    ids: { agent: agent.id, hook: hook.id, schedule: schedule.id, run: run.id, approval: approval.id, token: viewerRow.id, user: other.id, provider: ssoProvider.id, alert: alert.id },
    doomed: { agent: doomedAgent.id, hook: doomedHook.id, schedule: doomedSchedule.id, token: doomedToken.id, secret: "DOOMED_SECRET", provider: doomedProvider.id, alert: doomedAlert.id, run: doomedRun.id },
    agentName,
    secretName,
  };
}

/** The path parameter values that name something that exists, by route template and method. */
export function existingParams(template: string, method: string, world: HostileWorld): Record<string, string> {
  if (template.startsWith("/api/v1/auth/providers/")) return { id: method === "DELETE" ? world.doomed.provider : world.ids.provider };
  if (method === "DELETE") {
    const kind = template.split("/")[3] as "agents" | "alerts" | "hooks" | "schedules" | "tokens" | "secrets" | "runs";
    const doomed = { agents: world.doomed.agent, alerts: world.doomed.alert, hooks: world.doomed.hook, schedules: world.doomed.schedule, tokens: world.doomed.token, secrets: world.doomed.secret, runs: world.doomed.run }[kind];
    return { id: doomed ?? "00000000-0000-4000-8000-000000000000", name: world.doomed.secret };
  }
  const id = (() => {
    if (template.startsWith("/api/v1/agents/")) return world.ids.agent;
    if (template.startsWith("/api/v1/alerts/")) return world.ids.alert;
    if (template.startsWith("/api/v1/approvals/")) return world.ids.approval;
    if (template.startsWith("/api/v1/hooks/")) return world.ids.hook;
    if (template.startsWith("/api/v1/runs/")) return world.ids.run;
    if (template.startsWith("/api/v1/schedules/")) return world.ids.schedule;
    if (template.startsWith("/api/v1/tokens/")) return world.ids.token;
    return "00000000-0000-4000-8000-000000000000";
  })();
  return { id, name: world.secretName };
}

/** Valid example bodies (by "METHOD template"). */
export function exampleBodies(world: HostileWorld): Record<string, unknown> {
  const hook = { ...BLOCK_HOOK, id: "fuzz-new" };
  return {
    "POST /api/v1/agents": {
      name: "fuzz-new",
      description: "d",
      model: "scripted",
      tools: ["memory"],
      maxTurns: 3,
      timeoutMs: 60_000,
      budgetUsd: 1,
      script: [{ text: "hi", toolCalls: [{ name: "memory", input: { op: "read", name: "n" } }], usage: { inputTokens: 1, outputTokens: 1 } }],
    },
    "PATCH /api/v1/agents/[id]": { description: "patched", maxTurns: 4 },
    "POST /api/v1/alerts": {
      name: "fuzz-new-alert",
      kind: "runs_failed",
      agent: world.agentName,
      windowMinutes: 60,
      threshold: 2,
      cooldownMinutes: 30,
      targets: [
        { type: "slack", channel: "#ops", tokenSecret: "FUZZ_SECRET" },
        { type: "webhook", url: "https://hooks.example.com/alerts", headers: { authorization: "Bearer ${secret:FUZZ_SECRET}" } },
      ],
      enabled: false,
    },
    "PATCH /api/v1/alerts/[id]": { threshold: 7, windowMinutes: 120, enabled: false },
    "POST /api/v1/approvals/[id]/decision": { decision: "deny", reason: "no" },
    "POST /api/v1/config/import": { dialect: "hookplane", content: "hookplane: 1\nagents:\n  - name: imported\n", dry: true },
    "POST /api/v1/hooks": hook,
    "PATCH /api/v1/hooks/[id]": { enabled: false, matcher: "^fuzz-other$" },
    "POST /api/v1/hooks/[id]/restore": { version: 1 },
    "POST /api/v1/hooks/reorder": { scope: "global", ids: [world.ids.hook] },
    "POST /api/v1/hooks/replay": { hook, agent: world.ids.agent, runs: 5 },
    "POST /api/v1/hooks/test": { hook, event: { type: "tool.pre", toolName: "shell", toolInput: { command: "ls" } } },
    "POST /api/v1/ingest/claude-code": { session_id: "fuzz-session", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/tmp" },
    "POST /api/v1/ingest/gemini-cli": { session_id: "fuzz-session-g", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "ls" }, cwd: "/tmp" },
    "POST /api/v1/ingest/codex": { session_id: "fuzz-session-c", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/tmp" },
    "POST /api/v1/ingest/copilot": { sessionId: "fuzz-session-p", hookEventName: "preToolUse", toolName: "bash", toolArgs: { command: "ls" }, cwd: "/tmp" },
    "POST /api/v1/ingest/cursor": { conversation_id: "fuzz-conv", hook_event_name: "beforeShellExecution", command: "ls", cwd: "/tmp" },
    "POST /api/v1/ingest/events": { agent: world.ids.agent, sessionId: "fuzz-session-2", source: "fuzz", event: { type: "tool.pre", data: { toolName: "Bash", toolInput: { command: "ls" } } } },
    "PUT /api/v1/prices": { items: [{ modelPattern: "^scripted$", inputUsdPerM: 1, outputUsdPerM: 2, cachedUsdPerM: 0, effectiveFrom: "2024-01-01" }] },
    "POST /api/v1/runs": { agent: world.ids.agent, prompt: "hello" },
    "POST /api/v1/schedules": { agent: world.ids.agent, name: "s", intervalMs: 60_000, prompt: "p", enabled: false, hooks: [hook] },
    "PUT /api/v1/secrets/[name]": { value: "v", hosts: ["api.example.com", "*.slack.com"] },
    "PUT /api/v1/settings/kill-switch": { enabled: false },
    "POST /api/v1/auth/providers": {
      name: "Fuzz New IdP",
      issuer: "https://login.example.com/realms/main",
      clientId: "hp",
      clientSecret: "s3cret",
      scopes: ["openid", "email", "groups"],
      groupsClaim: "groups",
      roleMappings: [{ group: "hp-admins", role: "admin" }],
      defaultRole: "viewer",
      createUsers: true,
      linkByEmail: false,
    },
    "PATCH /api/v1/auth/providers/[id]": { groupsClaim: "roles", roleMappings: [{ group: "eng", role: "operator" }], defaultRole: null },
    "PUT /api/v1/auth/settings": { passwordSignIn: true },
    "PUT /api/v1/settings/retention": { runDays: 0, ledgerDays: 0, auditDays: 0 },
    "POST /api/v1/setup": { email: "a@example.com", password: "password123" },
    "POST /api/v1/tokens": { name: "t", role: "viewer" },
    "POST /api/v1/users": { email: "u@example.com", password: "password123", role: "viewer" },
  };
}

/** Valid example queries (by "METHOD template"). */
export function exampleQueries(world: HostileWorld): Record<string, Record<string, string>> {
  const window = { from: "2024-01-01", to: "2030-01-01" };
  return {
    "GET /api/v1/agents": { limit: "5" },
    "GET /api/v1/alerts/[id]/events": { limit: "5" },
    "GET /api/v1/approvals": { status: "pending", limit: "5" },
    "GET /api/v1/audit": { entityType: "agent", action: "agent", actor: "admin@example.com", ...window },
    "GET /api/v1/config/export": { dialect: "hookplane", format: "json", agent: world.ids.agent },
    "GET /api/v1/costs": window,
    "GET /api/v1/hooks": { scope: "global", event: "tool.pre", limit: "5" },
    "GET /api/v1/hooks/[id]/versions": { limit: "5" },
    "GET /api/v1/hooks/test/samples": { event: "tool.pre", agent: world.ids.agent, limit: "5" },
    "GET /api/v1/ledger": { hook: "fuzz-block", event: "tool.pre", verdict: "block", q: "x", ...window },
    "GET /api/v1/ledger/export": { format: "csv", hook: "fuzz-block", q: "x", ...window },
    "GET /api/v1/runs": { agent: world.ids.agent, status: "queued", q: "x", minCost: "0", ...window },
    "GET /api/v1/runs/export": { format: "csv", agent: world.ids.agent, q: "x", ...window },
    "GET /api/v1/runs/[id]/events": { after: "0", limit: "10" },
  };
}
