#!/usr/bin/env node
/**
 * The e2e suite drives Debian's Chromium (Playwright cannot download its own browser here).
 * On a fresh machine this installs it when we are root with apt-get; otherwise it says exactly
 * what to do instead of letting Playwright fail with a launch error.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (existsSync(path)) process.exit(0);

const canInstall = !process.env.CHROMIUM_PATH && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
if (!canInstall) {
  console.error(`Chromium is not at ${path}. Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  process.exit(1);
}
console.log("Chromium is missing: installing Debian's chromium package for the e2e suite…");
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env });
if (!existsSync(path)) {
  console.error(`apt-get finished but ${path} is still missing.`);
  process.exit(1);
}
