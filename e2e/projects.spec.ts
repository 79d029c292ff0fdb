/**
 * Projects in Chromium: an instance admin creates a project in Settings, switches to it (empty: the
 * demo agents live in the default project) and adds an operator to it; the operator signs in to
 * that project alone, creates an agent there, and cannot reach the default project through the
 * API's path prefix; the admin sees each project's agents only in that project.
 */
import { expect, test, type Page } from "@playwright/test";
import { AgentPages, AuthPages, dashboardApi, SettingsPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

/** The switcher reloads the page once the server has the new choice. */
async function switchTo(page: Page, slug: string) {
  await Promise.all([page.waitForEvent("load"), page.getByTestId("project-switcher").selectOption(slug)]);
  await expect(page.getByTestId("project-switcher")).toHaveValue(slug);
}

test("a second project keeps its agents and its people apart from the default one", async ({ page }, testInfo) => {
  const slug = `team-${Date.now().toString(36)}`;
  const member = { email: `${slug}-op@example.com`, password: "a long password" };
  const auth = new AuthPages(page);
  const agents = new AgentPages(page);
  await auth.signInOrSetUp(admin.email, admin.password);

  // Settings → Projects: a bad slug is refused on its field, a good one is created.
  const settings = new SettingsPages(page);
  await settings.openTab("instance");
  const create = page.getByTestId("create-project-form");
  await create.getByLabel("Slug").fill("Team B!");
  await page.getByTestId("create-project").click();
  await expect(create.getByTestId("error-project-slug")).toBeVisible();
  await create.getByLabel("Slug").fill(slug);
  await create.getByLabel("Name").fill("Team B");
  await page.getByTestId("create-project").click();
  await expect(page.getByTestId("project-switcher").locator("option", { hasText: "Team B" })).toHaveCount(1);

  // Switching: the new project has none of the default project's agents.
  await switchTo(page, slug);
  await page.getByTestId("nav-agents").click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId("empty-state")).toBeVisible();
  await expect(agents.names()).toHaveCount(0);

  // Its members: an operator, created with a password.
  await settings.open();
  const members = page.getByTestId("create-user-form");
  await members.getByLabel("Email").fill(member.email);
  await members.getByLabel("Initial password").fill(member.password);
  await members.getByLabel("Role").selectOption("operator");
  await page.getByTestId("add-user").click();
  await expect(settings.userRow(member.email)).toBeVisible();
  await auth.signOut();

  // The operator belongs to that project only: no switcher, its name shown, an empty list.
  await auth.signIn(member.email, member.password);
  await expect(page.getByTestId("current-project")).toContainText("Team B");
  // Signed in, they are Home; the project's agents are a click away, and there are none.
  await page.getByTestId("nav-agents").click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId("empty-state")).toBeVisible();
  await expect(agents.names()).toHaveCount(0);
  const api = dashboardApi(page);
  const made = await api.post("/api/v1/agents", { data: { name: "b-bot", model: "scripted", script: [{ text: "hello from B" }] } });
  expect(made.status()).toBe(201);
  await page.reload();
  await expect(agents.names()).toHaveText(["b-bot"]);
  // The default project does not exist for them, by path prefix or header.
  expect((await page.request.get("/api/v1/projects/default/agents")).status()).toBe(404);
  expect((await page.request.get("/api/v1/agents", { headers: { "x-hookplane-project": "default" } })).status()).toBe(404);
  expect((await page.request.get(`/api/v1/projects/${slug}/agents`)).status()).toBe(200);
  await page.screenshot({ path: testInfo.outputPath("project-member.png"), fullPage: true });
  await auth.signOut();

  // The instance admin sees each project's agents in that project only.
  await auth.signIn(admin.email, admin.password);
  await switchTo(page, "default");
  await agents.open();
  await expect(agents.names().filter({ hasText: "coding-agent" })).toHaveCount(1);
  await expect(agents.names().filter({ hasText: "b-bot" })).toHaveCount(0);
  await switchTo(page, slug);
  await expect(agents.names()).toHaveText(["b-bot"]);
});

test("the project on screen deleted while its member has another: the page says so and leads to the other", async ({ page, browser }) => {
  const slug = `gone-${Date.now().toString(36)}`;
  const member = { email: `${slug}@example.com`, password: "a long password" };
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  const api = dashboardApi(page);
  expect((await api.post("/api/v1/projects", { data: { slug, name: "Leaving" } })).status()).toBe(201);
  const added = await api.post(`/api/v1/projects/${slug}/members`, { data: { email: member.email, role: "operator", password: member.password } });
  expect(added.status()).toBe(201);
  expect((await api.post("/api/v1/projects/default/members", { data: { email: member.email, role: "viewer" } })).status()).toBe(201);

  // The member, on the leaving project's runs page, its live socket open.
  const context = await browser.newContext();
  const other = await context.newPage();
  await new AuthPages(other).signIn(member.email, member.password);
  await switchTo(other, slug);
  let hellos = 0;
  other.on("websocket", (ws) => ws.on("framereceived", (frame) => void (String(frame.payload).includes('"hello"') && hellos++)));
  await other.getByTestId("nav-runs").click();
  await expect.poll(() => hellos).toBeGreaterThan(0);
  await expect(other.getByTestId("session-ended")).toHaveCount(0);

  // Deleting the project keeps the member's session (a removal or demotion would end it: 4401).
  expect((await api.delete(`/api/v1/projects/${slug}`)).status()).toBe(204);
  const banner = other.getByTestId("session-ended");
  await expect(banner).toContainText("This project is no longer open to you");
  await banner.getByRole("link", { name: "Go to your projects" }).click();
  // Their one project left: named, no switcher, the page live again.
  await expect(other.getByTestId("current-project")).toContainText(/default/i);
  await expect(other.getByTestId("session-ended")).toHaveCount(0);
  await context.close();
});

test("a switch in another tab is said in this one, which reloads into the new project when asked", async ({ page, context }) => {
  const slug = `tabs-${Date.now().toString(36)}`;
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  expect((await dashboardApi(page).post("/api/v1/projects", { data: { slug, name: "Tabs" } })).status()).toBe(201);
  await page.goto("/agents");
  await switchTo(page, "default");
  const second = await context.newPage();
  await second.goto("/agents");
  await expect(second.getByTestId("project-switcher")).toHaveValue("default");

  await switchTo(second, slug);
  // The switching tab shows no notice of its own switch; the other says what changed.
  await expect(second.getByTestId("project-elsewhere")).toHaveCount(0);
  const notice = page.getByTestId("project-elsewhere");
  await expect(notice).toContainText(`Another tab switched to project ${slug}`);
  await expect(page.getByTestId("project-switcher")).toHaveValue("default");
  await Promise.all([page.waitForEvent("load"), notice.getByRole("button", { name: `Reload in ${slug}` }).click()]);
  await expect(page.getByTestId("project-switcher")).toHaveValue(slug);
  await expect(page.getByTestId("project-elsewhere")).toHaveCount(0);
  await second.close();
});
