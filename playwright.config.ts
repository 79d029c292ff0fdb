import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3210);

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  outputDir: "test-results/e2e",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    // A fresh embedded database (or a fresh PostgreSQL database when DATABASE_URL is set).
    command: "npx tsx e2e/start-server.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    // Running code is on: the journeys run an admin's agents with the shell tool (in the sandbox).
    // Webhooks may reach this machine: the decision-link and alert journeys receive notices on one.
    env: {
      PORT: String(port),
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      HOOKPLANE_ALLOW_CODE_EXECUTION: "1",
      HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1",
      HOOKPLANE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      // The alert rules journey waits for a firing: evaluate every 2 s rather than every minute.
      HOOKPLANE_ALERT_EVAL_MS: "2000",
    },
    stdout: "pipe",
    stderr: "pipe",
  },
});
