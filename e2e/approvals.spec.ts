import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("an approve hook holds a shell call; approving from the inbox resumes the run", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  // Set up through the API with the browser's session: an agent whose shell calls need a person.
  const agent = await dashboardApi(page).post("/api/v1/agents", {
    data: {
      name: "deployer",
      tools: ["shell"],
      script: [{ text: "Deploying.", toolCalls: [{ name: "shell", input: { command: "echo deployed" } }] }, { text: "Deployed after approval." }],
    },
  });
  expect(agent.status()).toBe(201);
  const hook = await dashboardApi(page).post("/api/v1/hooks", {
    data: { id: "ask-before-shell", event: "tool.pre", scope: "agent:deployer", matcher: "shell", action: { type: "approve", timeoutMs: 600000, onTimeout: "deny" } },
  });
  expect(hook.status()).toBe(201);
  const run = await dashboardApi(page).post("/api/v1/runs", { data: { agent: "deployer", prompt: "ship it" } });
  expect(run.status()).toBe(202);
  const { id } = await run.json();

  // The inbox shows it live, with a count in the navigation and the run's recent context.
  await page.getByTestId("nav-approvals").click();
  const card = page.getByTestId("approval-card");
  await expect(card).toHaveCount(1);
  await expect(card).toContainText("deployer");
  await expect(card).toContainText("shell");
  await expect(card).toContainText("echo deployed");
  await expect(card.getByTestId("approval-context")).toContainText("tool.pre");
  await expect(page.getByTestId("pending-approvals-count")).toHaveText("1");
  await page.screenshot({ path: testInfo.outputPath("inbox.png"), fullPage: true });

  // Decide by keyboard: focus the card and press A.
  await card.getByLabel("Reason").fill("change window is open");
  await card.focus();
  await page.keyboard.press("a");
  await expect(page.getByTestId("approval-card")).toHaveCount(0);
  await expect(page.getByTestId("approval-history")).toContainText("approved");
  await expect(page.getByTestId("approval-history")).toContainText("change window is open");
  await expect(page.getByTestId("pending-approvals-count")).toHaveCount(0);

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId("run-status")).toHaveText("completed");
  await expect(page.getByTestId("run-response")).toHaveText("Deployed after approval.");
  const span = page.getByTestId("run-span");
  await expect(span.locator('[data-status="done"]')).toHaveCount(1);
  await span.getByRole("button").first().click();
  await expect(span).toContainText("approval.settled");
  await expect(span).toContainText("approve by admin@example.com");
});
