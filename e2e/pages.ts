/**
 * Page objects for the journeys: each knows its testids so specs read as the user's steps.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

/** Home, where setup and sign-in land: the dashboard's root. */
export const HOME_URL = /^https?:\/\/[^/]+\/$/;

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
    await expect(this.page).toHaveURL(HOME_URL);
  }

  /**
   * Signs in from a fresh sign-in page, landing on Home; or, given `next`, on the sign-in page the
   * browser was sent to (`/sign-in?next=...`), landing on `next`.
   */
  async signIn(email: string, password: string, next?: string) {
    if (next === undefined) await this.page.goto("/sign-in");
    const form = this.page.getByTestId("sign-in-form");
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Password").fill(password);
    await form.getByTestId("submit").click();
    await expect(this.page).toHaveURL(next === undefined ? HOME_URL : new RegExp(`${next.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`));
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

  /** The project's page: members, tokens, service accounts, secrets. */
  async open() {
    await this.page.getByTestId("nav-settings").click();
    await expect(this.page).toHaveURL(/\/settings$/);
  }

  /** Another settings page, through its tab: `credentials`, `instance` or `server`. */
  async openTab(tab: "credentials" | "instance" | "server") {
    if (!/\/settings(\/|$)/.test(this.page.url())) await this.open();
    await this.page.getByTestId(`settings-tab-${tab}`).click();
    await expect(this.page).toHaveURL(new RegExp(`/settings/${tab}$`));
  }

  /** Schedules have a page of their own. */
  async openSchedules() {
    await this.page.getByTestId("nav-schedules").click();
    await expect(this.page).toHaveURL(/\/schedules$/);
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

/** How wide the page scrolls against the screen, and the innermost elements that reach past it (what to fix). */
export async function pageWidth(page: Page): Promise<{ scroll: number; client: number; past: string[] }> {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    const client = root.clientWidth;
    const reaching = [...document.querySelectorAll("main *")].filter((el) => el.getBoundingClientRect().right > client + 1);
    const innermost = reaching.filter((el) => !reaching.some((other) => other !== el && el.contains(other)));
    const name = (el: Element) => {
      const id = el.getAttribute("data-testid");
      const parentId = el.closest("[data-testid]")?.getAttribute("data-testid");
      return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ""}${parentId && !id ? ` in [data-testid=${parentId}]` : ""}: "${(el.textContent ?? "").trim().slice(0, 60)}"`;
    };
    return { scroll: root.scrollWidth, client, past: innermost.slice(0, 3).map(name) };
  });
}

/** What the page must never show while these journeys run: a console error or a server error. */
export function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (msg) => {
    // The favicon's 404 is issue 29 item 8, another branch's; every other console error counts.
    if (msg.type() === "error" && !msg.location().url.endsWith("/favicon.ico")) problems.push(`console: ${msg.text()} (${msg.location().url})`);
  });
  page.on("response", (res) => {
    if (res.status() >= 500) problems.push(`${res.status()} ${res.url()}`);
  });
  return problems;
}

/** The serious and critical accessibility violations axe finds on the page as it stands (rule ids and their first targets). */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}
