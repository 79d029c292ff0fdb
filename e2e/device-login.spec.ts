import { expect, test } from "@playwright/test";
import { AuthPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("hookplane login's link: signed out it passes through sign-in and back, the person approves the machine, and only the polling terminal gets the credential", async ({ page, request }, testInfo) => {
  // A fresh server's first person, then signed out: the link from the terminal is opened cold.
  const auth = new AuthPages(page);
  await auth.signInOrSetUp(admin.email, admin.password);
  await auth.signOut();

  const started = await request.post("/api/v1/device/code", { data: { name: "e2e-workstation" } });
  expect(started.status()).toBe(201);
  const code = await started.json();
  expect(code.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
  const pending = await request.post("/api/v1/device/token", { data: { deviceCode: code.deviceCode } });
  expect((await pending.json()).error.code).toBe("authorization_pending");

  await page.goto(new URL(code.verificationUriComplete).pathname + new URL(code.verificationUriComplete).search);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  const form = page.getByTestId("sign-in-form");
  await form.getByLabel("Email").fill(admin.email);
  await form.getByLabel("Password").fill(admin.password);
  await form.getByTestId("submit").click();
  await expect(page).toHaveURL(new RegExp(`/device\\?code=${code.userCode}$`));
  await expect(page.getByTestId("device-machine")).toContainText("e2e-workstation");
  await expect(page.getByLabel("Code shown in the terminal")).toHaveValue(code.userCode);
  await page.screenshot({ path: testInfo.outputPath("device-login.png"), fullPage: true });
  await page.getByTestId("device-approve").click();
  await expect(page.getByTestId("device-decided")).toContainText("e2e-workstation is signed in as you in default");
  // Nothing secret reached the browser.
  expect(await page.content()).not.toContain("hpb_");

  // The terminal's next poll (after the interval) gets the credential, once.
  await new Promise((resolve) => setTimeout(resolve, code.interval * 1000));
  const granted = await request.post("/api/v1/device/token", { data: { deviceCode: code.deviceCode } });
  expect(granted.status()).toBe(200);
  const credential = await granted.json();
  expect(credential).toMatchObject({ email: admin.email, project: "default" });
  expect(credential.token).toMatch(/^hpb_/);
  const twice = await request.post("/api/v1/device/token", { data: { deviceCode: code.deviceCode } });
  expect((await twice.json()).error.code).toBe("invalid_grant");

  // A code nobody started is said so on the page, not approved.
  await page.goto("/device?code=BBBB-CCCC");
  await expect(page.getByTestId("device-unknown")).toBeVisible();
  await page.getByLabel("Code shown in the terminal").fill("BBBB-CCCC");
  await page.getByTestId("device-approve").click();
  await expect(page.getByTestId("form-message")).toContainText("pending code");
});
