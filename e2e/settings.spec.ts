import { expect, test } from "@playwright/test";
import { AuthPages, SettingsPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };
const SECRET_VALUE = "e2e-secret-value-7f3a";

test("an admin stores a secret by name only, changes a role, and schedules an agent", async ({ page }, testInfo) => {
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  const settings = new SettingsPages(page);
  await settings.open();

  // Secrets: write-only values, names shown, bad names refused on the field.
  await expect(await settings.setSecret("bad-name", "whatever")).toContainText("name:");
  await expect(page.getByTestId("error-secret-name")).toBeVisible();
  await expect(await settings.setSecret("E2E_WEBHOOK_TOKEN", SECRET_VALUE)).toHaveText("Secret E2E_WEBHOOK_TOKEN saved");
  await expect(settings.secretRow("E2E_WEBHOOK_TOKEN")).toBeVisible();
  await expect(page.getByTestId("set-secret-form").getByLabel("Value")).toHaveValue("");
  await expect(await settings.setSecret("E2E_WEBHOOK_TOKEN", `${SECRET_VALUE}-2`)).toHaveText("Secret E2E_WEBHOOK_TOKEN replaced");
  expect(await page.content()).not.toContain(SECRET_VALUE);

  // Members: a new viewer becomes an operator.
  const email = `ops-${Date.now()}@example.com`;
  const userForm = page.getByTestId("create-user-form");
  await userForm.getByLabel("Email").fill(email);
  await userForm.getByLabel("Initial password").fill("a long password");
  await page.getByTestId("add-user").click();
  await expect(settings.userRow(email)).toBeVisible();
  await settings.userRow(email).getByTestId("user-role").selectOption("operator");
  await expect(page.getByText(`${email} is now operator`)).toBeVisible();
  await page.reload();
  await expect(settings.userRow(email).getByTestId("user-role")).toHaveValue("operator");
  // The first admin is an instance admin, who keeps every project: the project's last-admin rule
  // (lib/platform/auth/user-service.ts) holds for project admins, tested in user-role.db.test.ts.

  // Schedules (a page of their own): a bad cron is refused on its field; an interval schedule is listed with its next run.
  await settings.openSchedules();
  const form = settings.scheduleForm();
  await form.getByLabel("Agent").selectOption("coding-agent");
  await form.getByLabel("Cron expression").fill("every tuesday");
  await form.getByLabel("Prompt").fill("Tidy the workspace");
  await page.getByTestId("create-schedule").click();
  await expect(page.getByTestId("error-schedule-cron")).toBeVisible();
  await form.getByLabel("Timing").selectOption("interval");
  await form.getByLabel("Interval (ms)").fill("3600000");
  await page.getByTestId("create-schedule").click();
  await expect(form.getByTestId("form-message")).toHaveText("Schedule for coding-agent created");
  const row = page.getByTestId("schedule-row").filter({ hasText: "Tidy the workspace" });
  await expect(row).toContainText("every 3,600,000 ms");
  await expect(row).toContainText("coding-agent");
  await page.screenshot({ path: testInfo.outputPath("settings.png"), fullPage: true });

  page.once("dialog", (dialog) => dialog.accept());
  await row.getByTestId("delete-schedule").click();
  await expect(row).toHaveCount(0);
  await settings.open();
  page.once("dialog", (dialog) => dialog.accept());
  await settings.secretRow("E2E_WEBHOOK_TOKEN").getByTestId("delete-secret").click();
  await expect(settings.secretRow("E2E_WEBHOOK_TOKEN")).toHaveCount(0);
});

test("a person makes their own bridge credential: their agent's calls are recorded as theirs, and it reaches nothing else", async ({ page, request }, testInfo) => {
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  await new SettingsPages(page).openTab("credentials");
  const section = page.getByTestId("bridge-credentials-section");
  // Nothing named: the field says so, and nothing is made.
  await section.getByRole("button", { name: "Create bridge credential" }).click();
  await expect(section.getByTestId("error-bridge-credential-name")).toBeVisible();
  await section.getByLabel("For which machine").fill("e2e laptop");
  await section.getByRole("button", { name: "Create bridge credential" }).click();
  const secret = (await section.getByTestId("new-bridge-credential").textContent())!.trim();
  expect(secret).toMatch(/^hpb_/);
  await expect(section.getByText("export HOOKPLANE_TOKEN=")).toBeVisible();
  await page.reload();
  await expect(section.getByTestId("bridge-credential-row").filter({ hasText: "e2e laptop" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("bridge-credentials.png"), fullPage: true });

  // The coding agent's hook call, as `hookplane hook claude-code` sends it.
  const session = `e2e-bridge-${Date.now()}`;
  const call = await request.post("/api/v1/ingest/claude-code", {
    headers: { authorization: `Bearer ${secret}`, "x-hookplane-agent": "coding-agent", "x-hookplane-host": "e2e-host" },
    data: { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_e2e" },
  });
  expect(call.status()).toBe(200);
  // It cannot list the hooks that govern it, let alone change them.
  const hooks = await request.get("/api/v1/hooks", { headers: { authorization: `Bearer ${secret}` } });
  expect(hooks.status()).toBe(403);
  expect((await hooks.json()).error.message).toContain("bridge credential");

  // The run is the person's, in the API (read with the browser's session).
  const runs = await page.request.get(`/api/v1/runs?actor=${encodeURIComponent(admin.email)}`);
  const run = (await runs.json()).items.find((r: { prompt: string }) => r.prompt.includes(session.slice(0, 8)));
  expect(run?.actor).toMatchObject({ label: admin.email, machine: { host: "e2e-host", reported: true } });
  // The dashboard names the person: on the run, with the machine marked as reported, and in the
  // sessions search filtered by them (a link that can be shared).
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId("run-actor-label")).toHaveText(admin.email);
  await expect(page.getByTestId("run-actor-machine")).toContainText("e2e-host (reported, unverified)");
  await page.goto(`/audit?tab=sessions&actor=${encodeURIComponent(admin.email)}`);
  await expect(page.getByTestId("session-row").first().getByTestId("run-actor-label")).toHaveText(admin.email);
  await page.goto(`/audit?tab=sessions&actor=${encodeURIComponent("nobody@example.com")}`);
  await expect(page.getByTestId("session-row")).toHaveCount(0);
  await new SettingsPages(page).openTab("credentials");

  // Revoked from the same page: the next call is refused.
  await section.getByRole("button", { name: "Revoke e2e laptop" }).click();
  await expect(section.getByTestId("bridge-credential-row").filter({ hasText: "e2e laptop" })).toContainText("revoked");
  const after = await request.post("/api/v1/ingest/claude-code", {
    headers: { authorization: `Bearer ${secret}`, "x-hookplane-agent": "coding-agent" },
    data: { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_e2e_2" },
  });
  expect(after.status()).toBe(401);
});

test("an admin makes a service account for CI and gives it a bridge credential: its calls are recorded as the account; deleting it ends the credential", async ({ page, request }) => {
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  await new SettingsPages(page).open();
  const section = page.getByTestId("service-accounts-section");
  // A name records and rules can use: a bad one is refused at its field.
  await section.getByLabel("Name").fill("CI Deploy!");
  await section.getByRole("button", { name: "Create service account" }).click();
  await expect(section.getByTestId("error-service-account-name")).toBeVisible();
  const name = `ci-e2e-${Date.now()}`;
  await section.getByLabel("Name").fill(name);
  await section.getByLabel("What it is").fill("GitHub Actions");
  await section.getByRole("button", { name: "Create service account" }).click();
  await expect(section.getByTestId("service-account-row").filter({ hasText: name })).toBeVisible();

  const form = section.getByTestId("issue-service-credential-form");
  await form.getByLabel("Service account").selectOption({ label: name });
  await form.getByLabel("Used where").fill("github-actions");
  await form.getByRole("button", { name: "Create credential" }).click();
  const secret = (await form.getByTestId("new-service-credential").textContent())!.trim();
  expect(secret).toMatch(/^hpb_/);
  await expect(section.getByTestId("service-account-row").filter({ hasText: name }).locator("td").nth(2)).toHaveText("1");

  const session = `e2e-ci-${Date.now()}`;
  const call = await request.post("/api/v1/ingest/claude-code", {
    headers: { authorization: `Bearer ${secret}`, "x-hookplane-agent": "coding-agent", "x-hookplane-ci": "1" },
    data: { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_ci" },
  });
  expect(call.status()).toBe(200);
  const runs = await page.request.get("/api/v1/runs?limit=50");
  const run = (await runs.json()).items.find((r: { actor?: { label: string } }) => r.actor?.label === `service:${name}`);
  expect(run).toBeTruthy();
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId("run-actor-label")).toHaveText(`service:${name}`);

  await new SettingsPages(page).open();
  page.once("dialog", (dialog) => dialog.accept());
  await section.getByTestId("service-account-row").filter({ hasText: name }).getByTestId("delete-service-account").click();
  await expect(section.getByTestId("service-account-row").filter({ hasText: name })).toHaveCount(0);
  const after = await request.post("/api/v1/ingest/claude-code", {
    headers: { authorization: `Bearer ${secret}`, "x-hookplane-agent": "coding-agent" },
    data: { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_ci_2" },
  });
  expect(after.status()).toBe(401);
});
