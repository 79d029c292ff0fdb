import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };
const FIXTURE = path.join(import.meta.dirname, "../test/fixtures/bridges/claude-code/otel-logs/no-hooks-2.1.332.json");

/**
 * What a team lead sees of a session that ran without Hookplane's hooks (issue 28): Claude Code's
 * own telemetry, sent with a person's bridge credential, puts the session in red on the agent's
 * page with the person and the reason; the drifted-installs alert takes neither window nor wait;
 * and the costs page says which model's calls were recorded with no price instead of showing $0.
 */
test("a session without hooks on the agent's page, the drift alert's form, an unpriced model on the costs page", async ({ page }, testInfo) => {
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  const api = dashboardApi(page);
  const name = `unguarded-${Date.now().toString(36)}`;
  const created = await api.post("/api/v1/agents", { data: { name } });
  expect(created.status()).toBe(201);
  const agentId: string = (await created.json()).id;
  const token: string = (await (await api.post("/api/v1/bridge-credentials", { data: { name: "lead laptop" } })).json()).token;

  // Claude Code's log exporter, as recorded from the real CLI, under a session id of this test.
  const session = `${name}-session`;
  const text = readFileSync(FIXTURE, "utf8");
  const original = /"key": "session\.id",\s*"value": \{\s*"stringValue": "([^"]+)"/.exec(text)![1];
  for (const batch of JSON.parse(text.replaceAll(original, session)) as unknown[]) {
    const res = await page.request.post("/api/v1/ingest/otel/v1/logs", { data: batch, headers: { authorization: `Bearer ${token}`, "x-hookplane-agent": name } });
    expect(res.status()).toBe(200);
  }

  await page.goto(`/agents/${agentId}`);
  const unguarded = page.getByTestId("unguarded-session");
  await expect(unguarded).toHaveCount(1);
  await expect(unguarded).toHaveAttribute("data-reason", "no_gating_hook");
  await expect(unguarded).toContainText(admin.email);
  await expect(unguarded).toContainText(session);
  await expect(unguarded).toContainText("registered no PreToolUse hook: no tool call was checked");
  await page.screenshot({ path: testInfo.outputPath("unguarded-sessions.png"), fullPage: true });

  // The drift alert counts machines now: no window, no wait in its form.
  await page.getByTestId("nav-alerts").click();
  const form = page.getByTestId("alert-rule-form");
  await form.getByLabel("Watches").selectOption({ label: "Drifted installs" });
  await expect(form.getByLabel("Window (minutes)")).toHaveCount(0);
  await expect(form.getByLabel("Waiting longer than (minutes)")).toHaveCount(0);
  await form.getByLabel("Name").fill(`${name}-drift`);
  await form.getByLabel("Fires above (count)").fill("0");
  await page.getByTestId("save-alert-rule").click();
  await expect(page).toHaveURL(/\/alerts\/[0-9a-f-]{36}$/);
  await page.getByTestId("nav-alerts").click();
  await expect(page.locator(`[data-testid="alert-rule-row"][data-rule="${name}-drift"]`)).toContainText("above 0");

  // A bridged turn's usage for a model with no price: said on the costs page, not shown as free.
  const usage = { transcript: "/tmp/t.jsonl", messages: [{ id: `${name}-m1`, model: "claude-unpriced-9-9", input_tokens: 1000, output_tokens: 100 }] };
  const stop = await page.request.post("/api/v1/ingest/claude-code", {
    data: { session_id: `${name}-bridged`, transcript_path: "/tmp/t.jsonl", cwd: "/repo", hook_event_name: "Stop", stop_hook_active: false, hookplane_usage: usage },
    headers: { authorization: `Bearer ${token}`, "x-hookplane-agent": name },
  });
  expect(stop.status()).toBe(200);
  await page.getByTestId("nav-costs").click();
  await expect(page.getByTestId("cost-unpriced")).toContainText("anthropic:claude-unpriced-9-9");
  await expect(page.locator('[data-testid="cost-by-model-row"]', { hasText: "claude-unpriced-9-9" }).getByTestId("cost-model-unpriced")).toHaveText("(1 unpriced)");
});
