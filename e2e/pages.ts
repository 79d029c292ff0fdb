/**
 * Page objects for the journeys: each knows its testids so specs read as the user's steps.
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

type WriteOptions = NonNullable<Parameters<APIRequestContext["post"]>[1]>;

/**
 * The API as the dashboard's own scripts call it: the session cookie plus the headers a browser
 * adds to a same-origin fetch (Origin, JSON). A bare `page.request` write sends no Origin, and the
 * API refuses cookie writes without one as cross-site (lib/platform/api/route.ts).
 */
export function dashboardApi(page: Page) {
  // Before the first navigation (or after a crash) the page is about:blank: use the suite's base URL.
  const origin = () => new URL(page.url().startsWith("http") ? page.url() : test.info().project.use.baseURL!).origin;
  const write = (method: "post" | "put" | "patch" | "delete") => (url: string, options: WriteOptions = {}) =>
    page.request[method](url, { ...options, headers: { origin: origin(), "content-type": "application/json", ...options.headers } });
  return { post: write("post"), put: write("put"), patch: write("patch"), delete: write("delete") };
}

export class AuthPages {
  constructor(private readonly page: Page) {}

  async setUpFirstAdmin(email: string, password: string) {
    await this.page.goto("/");
    await expect(this.page).toHaveURL(/\/setup$/);
    const form = this.page.getByTestId("setup-form");
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Password").fill(password);
    await form.getByTestId("submit").click();
    await expect(this.page).toHaveURL(/\/agents$/);
  }

  async signIn(email: string, password: string) {
    await this.page.goto("/sign-in");
    const form = this.page.getByTestId("sign-in-form");
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Password").fill(password);
    await form.getByTestId("submit").click();
    await expect(this.page).toHaveURL(/\/agents$/);
  }

  /** Specs run alone start on a fresh server: the first one in creates the admin. */
  async signInOrSetUp(email: string, password: string) {
    await this.page.goto("/");
    await this.page.waitForURL(/\/(setup|sign-in)$/);
    if (this.page.url().endsWith("/setup")) await this.setUpFirstAdmin(email, password);
    else await this.signIn(email, password);
  }

  async signOut() {
    await this.page.getByTestId("sign-out").click();
    await expect(this.page).toHaveURL(/\/sign-in$/);
  }
}

export class AgentPages {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.getByTestId("nav-agents").click();
    await expect(this.page).toHaveURL(/\/agents$/);
    await expect(this.page.getByTestId("agent-list")).toBeVisible();
  }

  names() {
    return this.page.getByTestId("agent-name");
  }

  form() {
    return this.page.getByTestId("agent-form");
  }
}

export class HookPages {
  constructor(private readonly page: Page) {}

  async open(query = "") {
    await this.page.getByTestId("nav-hooks").click();
    await expect(this.page).toHaveURL(/\/hooks$/);
    if (query) await this.page.goto(`/hooks${query}`);
    await expect(this.page.getByTestId("hook-groups")).toBeVisible();
  }

  group(title: string) {
    return this.page.getByTestId("hook-group").filter({ has: this.page.getByTestId("hook-group-title").getByText(title, { exact: true }) });
  }

  row(key: string) {
    return this.page.locator(`[data-testid="hook-row"][data-hook-key="${key}"]`);
  }

  form() {
    return this.page.getByTestId("hook-form");
  }

  field(label: string) {
    return this.form().getByLabel(label, { exact: true });
  }

  fieldError(id: string) {
    return this.form().getByTestId(`error-${id}`);
  }

  async save() {
    await this.page.getByTestId("save-hook").click();
  }

  history() {
    return this.page.getByTestId("version-history");
  }
}

export class CostPages {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.getByTestId("nav-costs").click();
    await expect(this.page).toHaveURL(/\/costs/);
    await expect(this.page.getByTestId("cost-dashboard")).toBeVisible();
  }

  total() {
    return this.page.getByTestId("cost-total");
  }

  topRun(runId: string) {
    return this.page.locator(`[data-testid="top-run-row"][data-run-id="${runId}"]`);
  }

  agentRow(name: string) {
    return this.page.locator(`[data-testid="cost-by-agent-row"][data-agent="${name}"]`);
  }

  async testMatch(model: string) {
    await this.page.getByTestId("price-test-model").fill(model);
    return { pattern: this.page.getByTestId("price-match-pattern"), cost: this.page.getByTestId("price-match-cost") };
  }
}

export class AuditPages {
  constructor(private readonly page: Page) {}

  async open(tab: "sessions" | "ledger" | "changes" | "integrity" = "sessions") {
    await this.page.getByTestId("nav-audit").click();
    await expect(this.page).toHaveURL(/\/audit/);
    await this.page.getByTestId(`audit-tab-${tab}`).click();
    await expect(this.page).toHaveURL(new RegExp(`tab=${tab}`));
  }

  async searchLedger(filters: { hook?: string; verdict?: string; window?: string }) {
    if (filters.verdict) await this.page.getByTestId("ledger-verdict-filter").selectOption(filters.verdict);
    if (filters.window) await this.page.getByTestId("ledger-window").selectOption(filters.window);
    if (filters.hook !== undefined) await this.page.getByTestId("ledger-hook").fill(filters.hook);
    await this.page.getByTestId("ledger-search").click();
  }

  ledgerRows() {
    return this.page.getByTestId("ledger-row");
  }

  /** Clicks an export link and returns the finished download. */
  async download(testId: string) {
    const [download] = await Promise.all([this.page.waitForEvent("download"), this.page.getByTestId(testId).click()]);
    return download;
  }

  changeRows() {
    return this.page.getByTestId("audit-row");
  }
}

export class SettingsPages {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.getByTestId("nav-settings").click();
    await expect(this.page).toHaveURL(/\/settings$/);
  }

  async setSecret(name: string, value: string) {
    const form = this.page.getByTestId("set-secret-form");
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Value").fill(value);
    await this.page.getByTestId("save-secret").click();
    return form.getByTestId("form-message");
  }

  secretRow(name: string) {
    return this.page.getByTestId("secret-row").filter({ has: this.page.getByTestId("secret-name").getByText(name, { exact: true }) });
  }

  userRow(email: string) {
    return this.page.getByTestId("user-row").filter({ hasText: email });
  }

  scheduleForm() {
    return this.page.getByTestId("create-schedule-form");
  }
}
