/**
 * The settings merge of `hookplane install` (bin/lib/hook-settings.cjs), pure: pinning the bridge
 * to absolute paths with a refusal on the gates, replacing only Hookplane's entries, and where each
 * coding agent reads its hooks.
 */
import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";

const require = createRequire(import.meta.url);
const settings = require("../bin/lib/hook-settings.cjs");

const node = "/opt/node 22/bin/node";
const cli = "/home/dev/it's/bin/hookplane.cjs";
const pinnedPrefix = `'/opt/node 22/bin/node' '/home/dev/it'\\''s/bin/hookplane.cjs'`;

const exported = {
  hooks: {
    PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "hookplane hook claude-code --agent dev --timeout-ms 1805000", timeout: 1815 }] }],
    Stop: [{ hooks: [{ type: "command", command: "hookplane hook claude-code --agent dev" }] }],
    PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "npm run lint" }] }],
  },
};

describe("pinning", () => {
  test("the bridge runs node and the CLI by absolute path, quoted; a gate blocks when they cannot run, other events do not", () => {
    const pinned = settings.pinDocument(exported, { kind: "claude-code", node, cli });
    expect(pinned.hooks.PreToolUse[0].hooks[0].command).toBe(`${pinnedPrefix} hook claude-code --agent dev --timeout-ms 1805000 || exit 2`);
    expect(pinned.hooks.Stop[0].hooks[0].command).toBe(`${pinnedPrefix} hook claude-code --agent dev`);
    expect(pinned.hooks.PostToolUse[0].hooks[0].command).toBe("npm run lint");
    expect(exported.hooks.Stop[0].hooks[0].command).toBe("hookplane hook claude-code --agent dev");
  });

  test("a skill's shell line bound by hand (PreSkillShellCommand, Claude Code 2.1.332) is a gate too; a model switch is not", () => {
    const pin = (event: string) => settings.pinCommand("hookplane hook claude-code --agent dev", { kind: "claude-code", event, node: "/n", cli: "/c" });
    expect(pin("PreSkillShellCommand")).toBe("'/n' '/c' hook claude-code --agent dev || exit 2");
    expect(pin("PreModelSwitch")).toBe("'/n' '/c' hook claude-code --agent dev");
  });

  test("Copilot CLI and Cursor read a refusal from stdout: their gates print a deny", () => {
    const copilot = settings.pinCommand("hookplane hook copilot --agent dev --event preToolUse", { kind: "copilot", event: "preToolUse", node: "/n", cli: "/c" });
    expect(copilot).toMatch(/^'\/n' '\/c' hook copilot --agent dev --event preToolUse \|\| \{ printf '%s\\n' '\{"permissionDecision":"deny",.*'; exit 0; \}$/);
    const cursor = settings.pinCommand("hookplane hook cursor --agent dev", { kind: "cursor", event: "beforeSubmitPrompt", node: "/n", cli: "/c" });
    expect(cursor).toContain('"continue":false');
  });
});

describe("merging", () => {
  const pinned = settings.pinDocument(exported, { kind: "claude-code", node, cli });

  test("keeps other keys and other people's hooks, replaces Hookplane's bare or pinned entries, doubles nothing", () => {
    const existing = {
      model: "opus",
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "hookplane hook claude-code --agent old" }, { type: "command", command: "./audit.sh" }] },
          { matcher: "*", hooks: [{ type: "command", command: "'/old/node' '/old/bin/hookplane.cjs' hook claude-code --agent dev || exit 2" }] },
        ],
        Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }],
      },
    };
    const { document, changes } = settings.mergeSettings(existing, pinned, { kind: "claude-code" });
    expect(document.model).toBe("opus");
    expect(document.hooks.Notification).toEqual(existing.hooks.Notification);
    expect(document.hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: "./audit.sh" }] }, ...pinned.hooks.PreToolUse]);
    expect(changes.find((c: { event: string }) => c.event === "PreToolUse")).toEqual({ event: "PreToolUse", removed: 2, added: 1, kept: 1 });
    // Again: the same file.
    expect(settings.mergeSettings(document, pinned, { kind: "claude-code" }).document).toEqual(document);
  });

  test("a native hook an earlier export wrote is replaced when the install state names it", () => {
    const earlier = [{ event: "PostToolUse", entry: { type: "command", command: "npm run lint:old" } }];
    const existing = { hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "npm run lint:old" }] }] } };
    const { document } = settings.mergeSettings(existing, pinned, { kind: "claude-code", previous: earlier });
    expect(document.hooks.PostToolUse).toEqual(pinned.hooks.PostToolUse);
  });

  test("a flat file (Cursor) keeps its version and other entries", () => {
    const cursorExport = { version: 1, hooks: { beforeShellExecution: [{ command: "hookplane hook cursor --agent dev" }] } };
    const pinnedCursor = settings.pinDocument(cursorExport, { kind: "cursor", node: "/n", cli: "/c" });
    const { document } = settings.mergeSettings({ hooks: { beforeShellExecution: [{ command: "./mine.sh" }, { command: "hookplane hook cursor --agent x" }] } }, pinnedCursor, { kind: "cursor" });
    expect(document.version).toBe(1);
    expect(document.hooks.beforeShellExecution.map((e: { command: string }) => e.command)).toEqual(["./mine.sh", expect.stringMatching(/^'\/n' '\/c' hook cursor --agent dev \|\| /)]);
  });

  test("a file whose hooks is not an object is refused, not overwritten", () => {
    expect(() => settings.mergeSettings({ hooks: [] }, pinned, { kind: "claude-code" })).toThrow(/not an object/);
  });
});

test("where each coding agent reads its hooks", () => {
  const env = { home: "/home/dev", dir: "/src/app", platform: "linux", vars: {} };
  expect(settings.settingsPath("claude-code", "user", env)).toBe("/home/dev/.claude/settings.json");
  expect(settings.settingsPath("claude-code", "project", env)).toBe("/src/app/.claude/settings.json");
  expect(settings.settingsPath("claude-code", "managed", env)).toBe("/etc/claude-code/managed-settings.json");
  expect(settings.settingsPath("claude-code", "managed", { ...env, platform: "darwin" })).toBe("/Library/Application Support/ClaudeCode/managed-settings.json");
  expect(settings.settingsPath("codex", "user", env)).toBe("/home/dev/.codex/hooks.json");
  expect(settings.settingsPath("gemini-cli", "project", env)).toBe("/src/app/.gemini/settings.json");
  expect(settings.settingsPath("copilot", "project", env)).toBe("/src/app/.github/hooks/hookplane.json");
  expect(settings.settingsPath("copilot", "user", env)).toBeInstanceOf(Error);
  expect(settings.settingsPath("cursor", "user", env)).toBe("/home/dev/.cursor/hooks.json");
});

test("doctor tells a bare hookplane from a pinned one", () => {
  expect(settings.programOf("hookplane hook claude-code --agent dev")).toEqual({ bare: true, program: "hookplane" });
  expect(settings.programOf(`${pinnedPrefix} hook claude-code --agent dev || exit 2`)).toEqual({ bare: false, program: node, script: cli });
});
