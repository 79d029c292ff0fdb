import { expect, test } from "@playwright/test";
import { AuthPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

// A herdctl agent file after the seed docs' price-checker example.
const HERDCTL = `name: deal-watcher
description: Watches prices
max_turns: 10
metadata_file: metadata.json
hooks:
  after_run:
    - type: shell
      name: "Log output"
      command: "jq -r '.result.output'"
    - type: discord
      name: "Price alert"
      when: "metadata.shouldNotify"
      on_events: [completed]
      channel_id: "\${DISCORD_CHANNEL_ID}"
      bot_token_env: DISCORD_BOT_TOKEN
`;

test("import a herdctl agent: detected dialect, preview with warnings, apply, and export it back", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  await page.getByTestId("nav-import").click();
  await page.getByTestId("import-content").fill(HERDCTL);
  await expect(page.getByTestId("import-dialect")).toHaveValue("herdctl");

  await page.getByTestId("import-preview-button").click();
  const preview = page.getByTestId("import-preview");
  await expect(preview).toContainText("deal-watcher");
  await expect(page.getByTestId("preview-hook")).toHaveCount(2);
  await expect(preview).toContainText("session.end");
  // A shell hook needs an admin, and the ${ENV} channel is kept as written (not a credential), said as a warning.
  await expect(preview).toContainText("DISCORD_CHANNEL_ID");
  await page.screenshot({ path: testInfo.outputPath("import-preview.png"), fullPage: true });

  await page.getByTestId("import-apply").click();
  await expect(page.getByTestId("import-applied")).toBeVisible();
  await page.getByTestId("imported-agent-link").first().click();
  await expect(page.getByRole("heading", { name: "deal-watcher" })).toBeVisible();
  await expect(page.getByTestId("agent-hook")).toHaveCount(2);

  // Export it as herdctl again: the hooks come back.
  const exported = await page.request.get("/api/v1/config/export?dialect=herdctl&agent=deal-watcher");
  expect(exported.status()).toBe(200);
  const text = await exported.text();
  expect(text).toContain("after_run");
  expect(text).toContain("metadata.shouldNotify");

  // Malformed YAML is a readable error with its line, and nothing is created.
  await page.getByTestId("nav-import").click();
  await page.getByTestId("import-content").fill("name: [unclosed\nhooks: {");
  await page.getByTestId("import-dialect").selectOption("herdctl");
  await page.getByTestId("import-preview-button").click();
  await expect(page.getByTestId("import-error")).toContainText(/line/i);
});
