/**
 * shell.destructive and shell.discard on another project's regression corpus (destructive_command_guard,
 * a Claude Code hook: test/fixtures/detectors/dcg-corpus, ORIGIN.md): every command it says must be
 * denied or allowed, against what these two detectors find together. The disagreements are listed
 * by command, each one a difference of policy said in docs/detectors.md, so a new one is seen.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { beforeAll, expect, it } from "vitest";
import { detectorsReady } from "../registry";
import { destructiveShell, discardShell } from "./destructive-shell";

const ROOT = path.join(process.cwd(), "test/fixtures/detectors/dcg-corpus");
const tomlFiles = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(path.join(dir, f)).isDirectory() ? tomlFiles(path.join(dir, f)) : f.endsWith(".toml") ? [path.join(dir, f)] : []));

beforeAll(() => detectorsReady());

it("agrees with it on every command but five, each a difference of policy", () => {
  let commands = 0;
  const disagreements: string[] = [];
  for (const file of tomlFiles(ROOT)) {
    const cases = ((parse(readFileSync(file, "utf8")) as { case?: Record<string, unknown>[] }).case ?? []).filter((c) => typeof c.command === "string");
    for (const c of cases) {
      const expected = (c.expected ?? c.expected_decision) as string;
      const command = c.command as string;
      const findings = [...destructiveShell.detect(command, { cwd: "/home/dev/project" }), ...discardShell.detect(command, { cwd: "/home/dev/project" })];
      commands++;
      if ((findings.length > 0 ? "deny" : "allow") !== expected) disagreements.push(`${path.relative(ROOT, file)}: ${expected}: ${command}`);
    }
  }
  expect(commands).toBe(350);
  expect(disagreements).toEqual([
    // A single file outside the workspace, not a recursive delete (as `rm -f /etc/hosts.bak`).
    "bypass_attempts/heredoc_inline.toml: deny: python3 -c \"import os; os.remove('/etc/passwd')\"",
    // /tmp is scratch for shell.destructive, whichever language deletes there (as its own rm_safe allows `rm -rf /tmp/…`).
    "canonical.toml: deny: python -c \"import shutil; shutil.rmtree('/tmp/demo')\"",
    "canonical.toml: deny: python -c 'import shutil; shutil.rmtree(\"/tmp/demo\")'",
    // `rm -rf` with no operand deletes nothing.
    "edge_cases/multi_segment.toml: deny: echo yes | rm -rf && echo done",
    // Inside the session's workspace: the agent's own build output.
    "true_positives/rm_destructive.toml: deny: rm -rf ./build",
  ]);
});
