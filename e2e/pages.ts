/**
 * Page objects for the journeys: each knows its testids so specs read as the user's steps.
 */
import { expect, type Page } from "@playwright/test";

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
