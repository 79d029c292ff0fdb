import { describe, expect, it } from "vitest";
import { EXPORT_DIALECTS } from "@/lib/core/dialects/types";
import { exportQuerySchema } from "@/lib/features/config-io/import-request";
import { CODING_AGENTS, CODING_AGENT_GUIDES, codingAgentOf, connectCommands, connectPagePath, exportPath, hookNotes } from "./connect-instructions";

describe("connect instructions", () => {
  it("every coding agent is an export dialect with a guide naming at least its project's hook file", () => {
    for (const agent of CODING_AGENTS) {
      expect(EXPORT_DIALECTS).toContain(agent);
      expect(CODING_AGENT_GUIDES[agent].files.filter((f) => f.reach === "project")).toHaveLength(1);
    }
    expect(CODING_AGENT_GUIDES["claude-code"].files.map((f) => f.path)).toEqual([".claude/settings.json", "~/.claude/settings.json"]);
    expect(CODING_AGENT_GUIDES.copilot.files.map((f) => f.path)).toEqual([".github/hooks/hookplane.json"]);
  });

  it("the URL's ?agent= picks the coding agent; anything else is Claude Code", () => {
    expect(codingAgentOf("gemini-cli")).toBe("gemini-cli");
    expect(codingAgentOf(["cursor", "codex"])).toBe("cursor");
    expect(codingAgentOf(undefined)).toBe("claude-code");
    expect(codingAgentOf("herdctl")).toBe("claude-code");
    expect(codingAgentOf("<script>")).toBe("claude-code");
  });

  it("login names this instance's public URL without a trailing slash; the headless way sets both variables", () => {
    const commands = connectCommands("https://hooks.example.com/");
    expect(commands.login).toBe("hookplane login --url https://hooks.example.com");
    expect(commands.headless).toBe("export HOOKPLANE_URL=https://hooks.example.com\nexport HOOKPLANE_TOKEN=<a bridge credential from Settings>");
    expect(commands.install.split("\n")[0]).toBe("npm link");
  });

  it("the settings are the export endpoint's file for that agent, with its sessions recorded: a query the endpoint accepts", () => {
    const path = exportPath("codex", "my-agent.v2");
    expect(path).toBe("/api/v1/config/export?dialect=codex&agent=my-agent.v2&sessions=true");
    const query = Object.fromEntries(new URL(path, "http://x").searchParams);
    expect(exportQuerySchema.parse(query)).toMatchObject({ dialect: "codex", agent: "my-agent.v2", sessions: true });
  });

  it("the page to share names the agent and the coding agent", () => {
    expect(connectPagePath("0b6f3f0e-8c1e-4d1a-9d55-3a3f6f1b2c4d", "copilot")).toBe("/agents/0b6f3f0e-8c1e-4d1a-9d55-3a3f6f1b2c4d/connect?agent=copilot");
  });

  it("of the export's warnings, what the coding agent cannot carry of the agent's hooks is kept; file-wide ones, other agents' hooks and disabled ones are not", () => {
    const lost = [
      { path: "hooks.no-rm.when", message: "Codex hooks have no condition; exported without it" },
      { path: 'hooks["no rm"].onOutcomes', message: "Codex hooks cannot filter by outcome; exported without it" },
      { path: "hooks.watch.mode", message: "codex has no shadow mode; the shadow hook was not exported (it would enforce)" },
    ];
    expect(
      hookNotes([
        { path: "agents", message: "Codex hook files define no agents; agent definitions were not exported" },
        { path: "hooks", message: "hooks Codex cannot run itself are enforced through the bridge" },
        { path: "hooks.no-prod.scope", message: 'belongs to agent:coding-agent; this export is for agent "mine" only' },
        { path: "hooks.old.enabled", message: "codex has no way to disable a hook; the disabled hook was not exported" },
        ...lost,
      ]),
    ).toEqual(lost);
  });
});
