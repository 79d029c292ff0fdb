/**
 * Last in the suite (the prefix), on purpose: by now the other specs have filled the one shared
 * database with what a team's first weeks bring (long hook errors, long agent and hook names,
 * blocked and failed runs, approvals). first-day-forms checks every section on a phone early, when
 * most of it is empty; a row of real data that does not wrap (a hook's last error, a command) could
 * still widen a page past the screen, as a failing hook's error once widened Home on a phone. Every
 * section, and a run, an agent and a hook page, is checked here on a 390 px screen in both schemes.
 */
import { expect, test, type Page } from "@playwright/test";
import { AuthPages, pageWidth } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };
const SECTIONS = ["", "agents", "hooks", "runs", "approvals", "audit", "costs", "schedules", "alerts", "import", "settings", "settings/credentials", "settings/instance", "settings/server"];

/** The first link of a list page whose path matches (a detail page with this suite's data), once the list has loaded. */
async function firstDetail(page: Page, list: string, pattern: RegExp): Promise<string> {
  await page.goto(`/${list}`);
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const hrefs = await page.locator("main a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
        return (found = hrefs.find((href) => pattern.test(href)));
      },
      { message: `a ${list} detail page to open`, timeout: 20_000 },
    )
    .toBeDefined();
  return found!;
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`every page with the suite's data fits a phone's width (${colorScheme})`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme });
    const page = await context.newPage();
    try {
      await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
      const pages = SECTIONS.map((s) => `/${s}`);
      for (const [list, pattern] of [
        ["runs", /^\/runs\/[0-9a-f-]{36}$/],
        ["agents", /^\/agents\/[0-9a-f-]{36}$/],
        ["hooks", /^\/hooks\/[0-9a-f-]{36}$/],
      ] as const) {
        pages.push(await firstDetail(page, list, pattern));
      }
      const wide: string[] = [];
      for (const path of pages) {
        const response = await page.goto(path);
        expect(response?.status(), path).toBeLessThan(400);
        await expect(page.locator("main h1").first()).toBeVisible();
        const { scroll, client, past } = await pageWidth(page);
        if (scroll > client) wide.push(`${path}: ${scroll} > ${client}, past the edge: ${past.join("; ")}`);
      }
      expect(wide, "pages that scroll sideways on a phone").toEqual([]);
    } finally {
      await context.close();
    }
  });
}
