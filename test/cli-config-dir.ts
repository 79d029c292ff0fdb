/**
 * Every test file's `hookplane` CLIs (run directly, or by a real coding agent's hooks) keep their
 * stored credential and offline spool in a folder of that file's own, never in the user's
 * ~/.config: a fail-closed test's spooled decision must not be sent to another test's server, nor
 * outlive the run. A test that looks at the folder sets HOOKPLANE_CONFIG_DIR itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

const dir = mkdtempSync(path.join(tmpdir(), "hookplane-cli-config-"));
process.env.HOOKPLANE_CONFIG_DIR = dir;
// A CLI a test left running (one holding an abandoned approval) may still write its spool here as
// the folder goes: retried, and a folder that keeps filling is left to the system's temp cleanup
// rather than failing a file whose tests passed.
afterAll(() => {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (error) {
    console.warn(`could not remove ${dir}: ${(error as Error).message}`);
  }
});
