/**
 * Single sign-on in Chromium against a real OpenID provider this spec starts (oidc-provider on a
 * local port, test/oidc-provider.ts, with its development login page): an admin configures it in
 * Settings, a person signs in through its login page and lands with the role their groups map
 * to, signs out; a demoted person's open page loses its access at once.
 */
import { expect, test, type Page } from "@playwright/test";
import { startTestIdentityProvider, type TestIdentityProvider } from "../test/oidc-provider";
import { AuthPages, HOME_URL, SettingsPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };
const CLIENT_SECRET = "e2e-oidc-client-secret-5d1c";
const person = { login: "erin-sub", email: "erin.sso@example.com" };

test.describe.configure({ mode: "serial" });

let idp: TestIdentityProvider;

test.beforeAll(async () => {
  const base = test.info().project.use.baseURL!;
  idp = await startTestIdentityProvider({ redirectUris: [`${base}/auth/oidc/callback`], clientSecret: CLIENT_SECRET });
  idp.accounts.set(person.login, { email: person.email, emailVerified: true, groups: ["hp-eng"] });
});

test.afterAll(async () => {
  await idp?.close();
});

/** From the sign-in page through the provider's login page back to the dashboard. */
async function signInWithProvider(page: Page) {
  await page.goto("/sign-in");
  await page.getByTestId("sso-button").filter({ hasText: "Sign in with Test IdP" }).click();
  // The provider's own page (oidc-provider's development login: any password).
  await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(person.login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await expect(page).toHaveURL(HOME_URL);
  await expect(page.getByTestId("current-user")).toHaveText(person.email);
}

test("an admin configures a provider in Settings; a person signs in through it with the role their groups map to, and signs out", async ({ page }, testInfo) => {
  const auth = new AuthPages(page);
  await auth.signInOrSetUp(admin.email, admin.password);
  await new SettingsPages(page).openTab("instance");
  const section = page.getByTestId("sso-section");
  await expect(section.getByTestId("sso-callback-url")).toHaveText(`${test.info().project.use.baseURL}/auth/oidc/callback`);

  const form = section.getByTestId("add-provider-form");
  // A bad mapping line is refused at its field, with its line.
  await form.getByLabel("Name").fill("Test IdP");
  await form.getByLabel("Issuer URL").fill(idp.issuer);
  await form.getByLabel("Client ID").fill(idp.clientId);
  await form.getByLabel("Client secret").fill(CLIENT_SECRET);
  await form.getByLabel("Scopes").fill("openid email groups");
  await form.getByLabel("Groups → roles").fill("hp-admins = admin\nhp-eng = owner");
  await form.getByLabel("Everyone else").selectOption("viewer");
  await form.getByTestId("save-provider").click();
  await expect(form.getByRole("alert").filter({ hasText: "line 2:" })).toBeVisible();
  await form.getByLabel("Groups → roles").fill("hp-admins = admin\nhp-eng = operator");
  await form.getByLabel("Client secret").fill(CLIENT_SECRET);
  await form.getByTestId("save-provider").click();
  await expect(form.getByTestId("form-message")).toHaveText("Test IdP added: its button is on the sign-in page");
  await expect(section.getByTestId("provider-row").filter({ hasText: "Test IdP" })).toContainText("hp-eng → operator");
  expect(await page.content()).not.toContain(CLIENT_SECRET);
  await page.screenshot({ path: testInfo.outputPath("sso-settings.png"), fullPage: true });
  await auth.signOut();

  // The sign-in page offers the provider beside the password form.
  await expect(page.getByTestId("sso-button")).toHaveText(["Sign in with Test IdP"]);
  await expect(page.getByTestId("sign-in-form")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("sso-sign-in.png"), fullPage: true });

  await signInWithProvider(page);
  await expect(page.getByTestId("current-role")).toHaveText("operator");
  await auth.signOut();
  await page.goto("/agents");
  // Sent to sign in, with the page asked for to come back to.
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fagents$/);

  // Signing out of Hookplane leaves the provider's own session: forget it, so the provider asks again.
  // Cancelling at its login page then ends on the sign-in page with words, and no session.
  await page.context().clearCookies({ name: /^_(session|interaction)/ });
  await page.getByTestId("sso-button").click();
  await page.getByRole("link", { name: "[ Cancel ]" }).click();
  await expect(page).toHaveURL(/\/sign-in\?error=denied/);
  await expect(page.getByTestId("sign-in-error")).toHaveText("The sign-in was cancelled at Test IdP. Start again if that was not what you meant.");
});

test("a demoted person's open page loses access at once: by their groups at a later sign-in, and by an admin", async ({ page, browser }) => {
  // Erin, an operator, keeps the approvals inbox open (it listens on a live WebSocket).
  await signInWithProvider(page);
  await expect(page.getByTestId("current-role")).toHaveText("operator");
  await page.getByTestId("nav-approvals").click();
  await expect(page.getByRole("heading", { name: "Approvals" })).toBeVisible();
  await expect(page.getByTestId("session-ended")).toHaveCount(0);

  // The provider drops Erin from hp-eng; her next sign-in, in another browser, makes her a viewer.
  idp.accounts.set(person.login, { email: person.email, emailVerified: true, groups: [] });
  const elsewhere = await browser.newContext();
  const other = await elsewhere.newPage();
  await other.goto("/sign-in");
  await other.getByTestId("sso-button").click();
  await other.locator('input[name="login"]').fill(person.login);
  await other.locator('input[name="password"]').fill("any password");
  await other.getByRole("button", { name: "Sign-in" }).click();
  await expect(other.getByTestId("current-role")).toHaveText("viewer");

  // The open page hears at once that its session ended; its next navigation is the sign-in page.
  await expect(page.getByTestId("session-ended")).toBeVisible();
  await page.getByTestId("nav-agents").click();
  await expect(page).toHaveURL(/\/sign-in/);

  // Back in hp-eng: operator again; then an admin demotes her in Settings while her page is open.
  idp.accounts.set(person.login, { email: person.email, emailVerified: true, groups: ["hp-eng"] });
  await other.goto("/sign-in");
  await other.getByTestId("sso-button").click();
  await expect(other).toHaveURL(HOME_URL);
  await expect(other.getByTestId("current-role")).toHaveText("operator");
  await other.getByTestId("nav-approvals").click();
  await expect(other.getByRole("heading", { name: "Approvals" })).toBeVisible();

  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await new AuthPages(adminPage).signIn(admin.email, admin.password);
  const settings = new SettingsPages(adminPage);
  await settings.open();
  await expect(settings.userRow(person.email).getByTestId("user-sign-in")).toHaveText("single sign-on");
  await settings.userRow(person.email).getByTestId("user-role").selectOption("viewer");
  await expect(adminPage.getByText(`${person.email} is now viewer`)).toBeVisible();

  await expect(other.getByTestId("session-ended")).toBeVisible();
  await other.reload();
  await expect(other).toHaveURL(/\/sign-in/);
  await Promise.all([elsewhere.close(), adminContext.close()]);
});

test("a group mapped to a project gives a role there: the person switches to it and acts with that role", async ({ page, browser }) => {
  const fay = { login: "fay-sub", email: "fay.sso@example.com" };
  idp.accounts.set(fay.login, { email: fay.email, emailVerified: true, groups: ["hp-sso-team"] });

  // An instance admin makes the project, then maps the group to it.
  const auth = new AuthPages(page);
  await auth.signIn(admin.email, admin.password);
  const settings = new SettingsPages(page);
  await settings.openTab("instance");
  const projects = page.getByTestId("projects-section");
  const create = projects.getByTestId("create-project-form");
  await create.getByLabel("Slug").fill("SSO Team");
  await projects.getByTestId("create-project").click();
  await expect(projects.getByTestId("error-project-slug")).toContainText("lowercase letters, digits and dashes");
  await create.getByLabel("Slug").fill("sso-team");
  await create.getByLabel("Name").fill("SSO Team");
  await projects.getByTestId("create-project").click();
  await expect(projects.getByTestId("project-row").filter({ hasText: "sso-team" })).toBeVisible();

  const section = page.getByTestId("sso-section");
  const row = section.getByTestId("provider-row").filter({ hasText: "Test IdP" });
  await row.getByTestId("edit-provider").click();
  const form = row.getByTestId("edit-provider-form");
  // A project that does not exist is refused at its line.
  await form.getByLabel("Groups → roles").fill("hp-admins = admin\nhp-eng = operator\nhp-sso-team = no-such-team:operator");
  await form.getByTestId("save-provider").click();
  await expect(form.getByRole("alert").filter({ hasText: 'line 3: no project "no-such-team"' })).toBeVisible();
  await form.getByLabel("Groups → roles").fill("hp-admins = admin\nhp-eng = operator\nhp-sso-team = sso-team:operator");
  await form.getByTestId("save-provider").click();
  await expect(section.getByTestId("provider-row").filter({ hasText: "Test IdP" })).toContainText("hp-sso-team → sso-team:operator");
  await auth.signOut();

  // Fay signs in: a viewer in the default project (the provider's default role), an operator in sso-team.
  const context = await browser.newContext();
  const fayPage = await context.newPage();
  await fayPage.goto("/sign-in");
  await fayPage.getByTestId("sso-button").filter({ hasText: "Sign in with Test IdP" }).click();
  await fayPage.locator('input[name="login"]').fill(fay.login);
  await fayPage.locator('input[name="password"]').fill("any password");
  await fayPage.getByRole("button", { name: "Sign-in" }).click();
  await expect(fayPage).toHaveURL(HOME_URL);
  await expect(fayPage.getByTestId("current-role")).toHaveText("viewer");
  const switcher = fayPage.getByTestId("project-switcher");
  await expect(switcher.locator("option")).toHaveText(["Default (viewer)", "SSO Team (operator)"]);
  await switcher.selectOption("sso-team");
  await expect(fayPage.getByTestId("current-role")).toHaveText("operator");
  await expect(switcher).toHaveValue("sso-team");
  // Remembered: a new page opens in sso-team.
  await fayPage.goto("/runs");
  await expect(fayPage.getByTestId("current-role")).toHaveText("operator");
  await context.close();
});

test("hookplane login through single sign-on: from the terminal's link, through the provider, back to the code; the machine gets the person's credential in the project they pick", async ({ browser, request }) => {
  const gus = { login: "gus-sub", email: "gus.sso@example.com" };
  idp.accounts.set(gus.login, { email: gus.email, emailVerified: true, groups: ["hp-sso-team"] });
  const started = await (await request.post("/api/v1/device/code", { data: { name: "gus-laptop" } })).json();

  const context = await browser.newContext();
  const page = await context.newPage();
  const link = new URL(started.verificationUriComplete);
  await page.goto(`${link.pathname}${link.search}`);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await page.getByTestId("sso-button").filter({ hasText: "Sign in with Test IdP" }).click();
  await page.locator('input[name="login"]').fill(gus.login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  // Back where the link pointed, signed in through the provider.
  await expect(page).toHaveURL(new RegExp(`/device\\?code=${started.userCode}$`));
  await expect(page.getByTestId("device-machine")).toContainText("gus-laptop");
  await page.getByLabel("Project").selectOption({ label: "SSO Team (sso-team)" });
  await page.getByTestId("device-approve").click();
  await expect(page.getByTestId("device-decided")).toContainText("gus-laptop is signed in as you in sso-team");
  await context.close();

  await new Promise((resolve) => setTimeout(resolve, started.interval * 1000));
  const granted = await request.post("/api/v1/device/token", { data: { deviceCode: started.deviceCode } });
  expect(granted.status()).toBe(200);
  expect(await granted.json()).toMatchObject({ email: gus.email, project: "sso-team" });
});
