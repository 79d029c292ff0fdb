import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { AuditPages, AuthPages, dashboardApi } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };


test("search the audit: find the no-prod block in the ledger, download the export, review a config change", async ({ page }, testInfo) => {
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);

  // A run whose first write the seeded no-prod hook blocks.
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-row").filter({ hasText: "coding-agent" }).click();
  await page.getByTestId("start-run-form").getByLabel("Start a run").fill('Set replicas to 3, "now"');
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split("/").pop()!;
  await expect(page.getByTestId("run-status")).toHaveText("completed", { timeout: 20_000 });

  // Every time no-prod blocked a tool this week.
  const audit = new AuditPages(page);
  await audit.open("ledger");
  await audit.searchLedger({ hook: "no-prod", verdict: "block", window: "week" });
  await expect(page).toHaveURL(/hook=no-prod/);
  await expect(page).toHaveURL(/verdict=block/);
  await expect(page).toHaveURL(/window=week/);
  const row = audit.ledgerRows().filter({ has: page.locator(`a[href="/runs/${runId}"]`) });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("no-prod");
  await expect(row).toContainText("tool.pre");
  await expect(row).toContainText("Production paths are off-limits");
  // The call it decided on, by tool (its id in the title).
  await expect(row.getByTestId("ledger-tool")).toHaveText("write_file");
  for (const verdict of await audit.ledgerRows().getByTestId("ledger-verdict").allTextContents()) expect(verdict).toBe("block");
  await page.screenshot({ path: testInfo.outputPath("audit-ledger.png"), fullPage: true });

  // The export carries the same filters.
  const csv = await audit.download("export-ledger-csv");
  expect(csv.suggestedFilename()).toMatch(/^hookplane-ledger-\d{4}-\d{2}-\d{2}\.csv$/);
  const csvText = await readFile((await csv.path())!, "utf8");
  expect(csvText.split("\r\n")[0]).toContain("hookKey");
  expect(csvText).toContain("no-prod");
  expect(csvText).toContain(runId);
  expect(csvText).not.toMatch(/,allow,/);
  const ndjson = await audit.download("export-ledger-ndjson");
  const entries = (await readFile((await ndjson.path())!, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
  expect(entries.some((e) => e.runId === runId && e.hookKey === "no-prod" && e.verdict === "block")).toBe(true);

  // Sessions: text search over the run, exported with the quotes of its prompt intact.
  await page.getByTestId("audit-tab-sessions").click();
  await page.getByTestId("session-q").fill("replicas to 3");
  await page.getByTestId("session-search").click();
  await expect(page.getByTestId("session-row").filter({ has: page.locator(`a[href="/runs/${runId}"]`) })).toContainText("blocked");
  const runsCsv = await audit.download("export-sessions-csv");
  expect(runsCsv.suggestedFilename()).toMatch(/^hookplane-runs-.*\.csv$/);
  expect(await readFile((await runsCsv.path())!, "utf8")).toContain('"Set replicas to 3, ""now"""');

  // A configuration change, then the change log shows who made it and the before/after diff.
  // A throwaway agent, so the demo agents other specs use stay as seeded.
  const probe = `audit-probe-${Date.now()}`;
  const spec = { name: probe, model: "scripted", tools: ["read_file"], maxTurns: 3, timeoutMs: 60_000 };
  expect((await dashboardApi(page).post("/api/v1/agents", { data: { ...spec, description: "Reads the docs" } })).status()).toBe(201);
  const patched = await dashboardApi(page).patch(`/api/v1/agents/${probe}`, { data: { ...spec, description: "Reads the docs, audited" } });
  expect(patched.status()).toBe(200);
  await page.getByTestId("audit-tab-changes").click();
  await page.getByTestId("audit-entity-type").selectOption("agent");
  await expect(page).toHaveURL(/entityType=agent/);
  const update = audit.changeRows().and(page.locator('[data-action="agent.update"]')).filter({ hasText: probe });
  await expect(update).toHaveCount(1);
  await expect(update.getByTestId("audit-actor")).toHaveText(admin.email);
  await update.getByTestId("audit-expand").click();
  const diff = update.getByTestId("audit-diff");
  await expect(diff.locator('[data-diff="removed"]').filter({ hasText: "description" })).toHaveText(/"Reads the docs",?$/);
  await expect(diff.locator('[data-diff="added"]').filter({ hasText: "description" })).toHaveText(/"Reads the docs, audited",?$/);
  await expect(audit.changeRows().and(page.locator('[data-action="agent.create"]')).filter({ hasText: probe })).toHaveCount(1);
  await page.screenshot({ path: testInfo.outputPath("audit.png"), fullPage: true });
  expect((await dashboardApi(page).delete(`/api/v1/agents/${probe}`)).status()).toBe(204);

  // The admin's integrity check: both hash chains hold after all of the above.
  await audit.open("integrity");
  await page.getByTestId("verify-integrity").click();
  await expect(page.getByTestId("integrity-audit")).toHaveAttribute("data-status", "intact");
  await expect(page.getByTestId("integrity-ledger")).toHaveAttribute("data-status", "intact");
  await expect(page.getByTestId("integrity-ledger")).toContainText(/\d+ rows in the chain/);
});
