import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi } from "./pages";
import { webhookReceiver } from "./webhook-receiver";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("the alert rules page: a refused rule says why, a created rule is listed, and its firing shows in its history", async ({ page }, testInfo) => {
  const hooks = await webhookReceiver<{ notice: { summary: string; url: string }; alert: Record<string, unknown> }>();
  try {
    await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
    const api = dashboardApi(page);
    // A run whose write a hook blocks: what the rule below watches.
    expect(
      (
        await api.post("/api/v1/agents", {
          data: { name: "alert-writer", tools: ["write_file"], script: [{ text: "Writing.", toolCalls: [{ name: "write_file", input: { path: "x.txt", content: "x" } }] }, { text: "Not allowed." }] },
        })
      ).status(),
    ).toBe(201);
    expect(
      (await api.post("/api/v1/hooks", { data: { id: "no-writes", event: "tool.pre", scope: "agent:alert-writer", matcher: "write_file", action: { type: "block", reason: "no writes" } } })).status(),
    ).toBe(201);
    const run = await api.post("/api/v1/runs", { data: { agent: "alert-writer", prompt: "write x" } });
    expect(run.status()).toBe(202);
    const { id: runId } = await run.json();
    await expect.poll(async () => (await (await page.request.get(`/api/v1/runs/${runId}`)).json()).status, { timeout: 20_000 }).toBe("finished");

    await page.getByTestId("nav-alerts").click();
    await expect(page).toHaveURL(/\/alerts$/);
    await expect(page.getByTestId("empty-state")).toContainText("No alert rules");
    const form = page.getByTestId("alert-rule-form");

    // Refused at its fields, with what was typed kept.
    await form.getByLabel("Watches").selectOption({ label: "Blocked runs" });
    await form.getByLabel("Window (minutes)").fill("0");
    await page.getByTestId("add-alert-target").click();
    await form.getByLabel("Target", { exact: true }).selectOption("webhook");
    await form.getByLabel("URL").fill("ftp://files.example.com/alerts");
    await page.getByTestId("save-alert-rule").click();
    await expect(page.getByTestId("error-alert-new-name")).toHaveText("give the rule a name");
    await expect(page.getByTestId("error-alert-new-window")).toHaveText("the window is at least 1 minute");
    await expect(form.getByTestId("alert-target")).toContainText("only http and https URLs are allowed");
    await expect(form.getByLabel("URL")).toHaveValue("ftp://files.example.com/alerts");

    // Corrected, from the keyboard: Enter in a field submits the form.
    await form.getByLabel("Agent").selectOption({ label: "alert-writer" });
    await form.getByLabel("Window (minutes)").fill("60");
    await form.getByLabel("Fires above (count)").fill("0");
    await form.getByLabel("URL").fill(`${hooks.url}/alerts`);
    await form.getByLabel("Name").fill("blocked-writes");
    await form.getByLabel("Name").press("Enter");
    await expect(page).toHaveURL(/\/alerts\/[0-9a-f-]{36}$/);
    await expect(page.getByText("Alert rule blocked-writes created")).toBeVisible();
    const ruleUrl = page.url();

    // The workers evaluate every 2 s here (playwright.config.ts): the rule fires, once, and its
    // row says where the notice went once it went.
    const line = "Alert blocked-writes: blocked runs of agent alert-writer 1 over the last 1 h is above 0";
    const event = page.getByTestId("alert-event");
    await expect
      .poll(
        async () => {
          await page.reload();
          return (await event.allTextContents()).join(" | ");
        },
        { timeout: 30_000 },
      )
      .toMatch(/above 0.*webhook:127\.0\.0\.1$/);
    await expect(event).toHaveCount(1);
    await expect(event).toHaveAttribute("data-state", "firing");
    await expect(event.getByTestId("alert-event-message")).toHaveText(line);
    await expect.poll(() => hooks.bodies.length).toBe(1);
    expect(hooks.bodies[0].notice).toEqual({ summary: line, url: ruleUrl });
    await page.screenshot({ path: testInfo.outputPath("alert-rule.png"), fullPage: true });

    // Listed with its state.
    await page.getByTestId("nav-alerts").click();
    const row = page.locator('[data-testid="alert-rule-row"][data-rule="blocked-writes"]');
    await expect(row.getByTestId("alert-state")).toHaveText("firing");
    await expect(row).toContainText("above 0 over 1 h");
    await page.screenshot({ path: testInfo.outputPath("alerts.png"), fullPage: true });
    await page.getByTestId("theme-toggle").click();
    await expect(page.locator("html")).toHaveClass(/dark/);
    await page.screenshot({ path: testInfo.outputPath("alerts-dark.png"), fullPage: true });
    await page.getByTestId("theme-toggle").click();
  } finally {
    await hooks.close();
  }
});
