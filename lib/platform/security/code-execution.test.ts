import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@/lib/platform/config/config";
import { setEnv } from "@/test/config-env";
import { codeExecutionAllowed, codeExecutionSettings, prepareCodeExecution, sandboxMounts, serverShellPolicy } from "./code-execution";

/** The settings the runtime reads, for an environment of these variables alone. */
const settingsOf = (env: Record<string, string>) => codeExecutionSettings(loadConfig(env));

const dirs: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the one switch", () => {
  it("is HOOKPLANE_ALLOW_CODE_EXECUTION, a switch; anything else stops the start; the retired switches are named and enable nothing", () => {
    expect(settingsOf({}).enabled).toBe(false);
    expect(settingsOf({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" }).enabled).toBe(true);
    expect(settingsOf({ HOOKPLANE_ALLOW_CODE_EXECUTION: "true" }).enabled).toBe(true);
    expect(settingsOf({ HOOKPLANE_ALLOW_CODE_EXECUTION: "0" }).enabled).toBe(false);
    expect(() => settingsOf({ HOOKPLANE_ALLOW_CODE_EXECUTION: "enabled" })).toThrow('HOOKPLANE_ALLOW_CODE_EXECUTION: expected 1 or 0 (true/false, on/off, yes/no), got "enabled"');
    const retired = settingsOf({ HOOKPLANE_ALLOW_COMMAND_HOOKS: "true", HOOKPLANE_ALLOW_CODE_HOOKS: "1" });
    expect(retired).toMatchObject({ enabled: false, retiredSwitchesSet: ["HOOKPLANE_ALLOW_COMMAND_HOOKS", "HOOKPLANE_ALLOW_CODE_HOOKS"] });
    expect(codeExecutionAllowed(loadConfig({ HOOKPLANE_ALLOW_COMMAND_HOOKS: "1" }))).toBe(false);
  });

  it("off: the shell policy refuses, and its launcher starts nothing even if asked", () => {
    const policy = serverShellPolicy(loadConfig({}));
    expect(policy.refusal).toBe("running code on this server is off (the server's operator turns it on with HOOKPLANE_ALLOW_CODE_EXECUTION=1)");
    expect(() => policy.launcher({ command: "true", cwd: "/tmp" })).toThrow("running code on this server is off");
    expect(policy.prepareWorkspace).toBeUndefined();
  });
});

describe("where steps run", () => {
  it("workspaces default outside the data directory; the two may not contain each other", () => {
    const data = temp("hookplane-cfg-data-");
    expect(settingsOf({ HOOKPLANE_DATA_DIR: data }).workspacesDir).toBe(path.join(os.tmpdir(), "hookplane-workspaces"));
    // A setting that would weaken the boundary stops the start rather than guessing.
    const inside = { HOOKPLANE_DATA_DIR: data, HOOKPLANE_WORKSPACES_DIR: path.join(data, "workspaces"), HOOKPLANE_ALLOW_CODE_EXECUTION: "1" };
    expect(() => loadConfig(inside)).toThrow(ConfigError);
    expect(() => loadConfig(inside)).toThrow(/^HOOKPLANE_WORKSPACES_DIR: .* must not contain each other: shell steps would reach secret.key/);
    expect(() => loadConfig({ HOOKPLANE_DATA_DIR: path.join(data, "x"), HOOKPLANE_WORKSPACES_DIR: data })).toThrow(ConfigError);
  });

  it("the network is none unless set to host", () => {
    expect(settingsOf({}).network).toBe("none");
    expect(settingsOf({ HOOKPLANE_SHELL_NETWORK: "host" }).network).toBe("host");
    expect(() => settingsOf({ HOOKPLANE_SHELL_NETWORK: "bridge" })).toThrow('HOOKPLANE_SHELL_NETWORK: expected one of "none", "host", got "bridge"');
  });

  it("the sandbox hides the data directory, the workspaces, the app, the hooks folder and the server's home, never a system folder", () => {
    const data = temp("hookplane-cfg-data-");
    const hooks = temp("hookplane-cfg-hooks-");
    const mounts = sandboxMounts(settingsOf({ HOOKPLANE_DATA_DIR: data, HOOKPLANE_HOOKS_DIR: hooks }), "/root");
    expect(mounts.hide).toEqual(expect.arrayContaining([data, path.join(os.tmpdir(), "hookplane-workspaces"), process.cwd(), hooks, "/root"]));
    for (const dir of ["/", "/usr", "/etc", "/home", "/var"]) expect(mounts.hide).not.toContain(dir);
    expect(sandboxMounts(settingsOf({ HOOKPLANE_DATA_DIR: data }), "/").hide).not.toContain("/");
    expect(mounts.privateTmp).toEqual(expect.arrayContaining(["/tmp", "/dev/shm"]));
  });

  it("at start: the workspaces folder exists and is not listable by others, the data directory is the server's alone", () => {
    // A data directory as an older start left it: readable by everyone.
    const data = path.join(temp("hookplane-cfg-data-"), "data");
    mkdirSync(data, { mode: 0o755 });
    const workspaces = path.join(temp("hookplane-cfg-ws-"), "workspaces");
    const restore = setEnv({ HOOKPLANE_DATA_DIR: data, HOOKPLANE_WORKSPACES_DIR: workspaces });
    try {
      expect(statSync(data).mode & 0o777).toBe(0o755);
      const logged: string[] = [];
      prepareCodeExecution({ info: (_d, m) => logged.push(m), warn: (_d, m) => logged.push(m) });
      expect(statSync(workspaces).mode & 0o777).toBe(0o711);
      expect(statSync(data).mode & 0o777).toBe(0o700);
      expect(logged[0]).toMatch(/^running code is (off|on)/);
    } finally {
      restore();
    }
  });
});
