import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codeExecutionAllowed, codeExecutionSettings, CodeExecutionConfigError, prepareCodeExecution, sandboxMounts, serverShellPolicy } from "./code-execution";

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
  it("is HOOKPLANE_ALLOW_CODE_EXECUTION, 1 or true; the retired switches are named and enable nothing", () => {
    expect(codeExecutionSettings({}).enabled).toBe(false);
    expect(codeExecutionSettings({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" }).enabled).toBe(true);
    expect(codeExecutionSettings({ HOOKPLANE_ALLOW_CODE_EXECUTION: "true" }).enabled).toBe(true);
    expect(codeExecutionSettings({ HOOKPLANE_ALLOW_CODE_EXECUTION: "yes" }).enabled).toBe(false);
    const retired = codeExecutionSettings({ HOOKPLANE_ALLOW_COMMAND_HOOKS: "true", HOOKPLANE_ALLOW_CODE_HOOKS: "1" });
    expect(retired).toMatchObject({ enabled: false, retiredSwitchesSet: ["HOOKPLANE_ALLOW_COMMAND_HOOKS", "HOOKPLANE_ALLOW_CODE_HOOKS"] });
    expect(codeExecutionAllowed({ HOOKPLANE_ALLOW_COMMAND_HOOKS: "1" })).toBe(false);
  });

  it("off: the shell policy refuses, and its launcher starts nothing even if asked", () => {
    const policy = serverShellPolicy({});
    expect(policy.refusal).toBe("running code on this server is off (the server's operator turns it on with HOOKPLANE_ALLOW_CODE_EXECUTION=1)");
    expect(() => policy.launcher({ command: "true", cwd: "/tmp" })).toThrow("running code on this server is off");
    expect(policy.prepareWorkspace).toBeUndefined();
  });
});

describe("where steps run", () => {
  it("workspaces default outside the data directory; the two may not contain each other", () => {
    const data = temp("hookplane-cfg-data-");
    expect(codeExecutionSettings({ HOOKPLANE_DATA_DIR: data }).workspacesDir).toBe(path.join(os.tmpdir(), "hookplane-workspaces"));
    const inside = { HOOKPLANE_DATA_DIR: data, HOOKPLANE_WORKSPACES_DIR: path.join(data, "workspaces"), HOOKPLANE_ALLOW_CODE_EXECUTION: "1" };
    expect(() => codeExecutionSettings(inside)).toThrow(CodeExecutionConfigError);
    expect(() => codeExecutionSettings(inside)).toThrow(/must not contain each other: shell steps would reach secret.key/);
    expect(() => codeExecutionSettings({ HOOKPLANE_DATA_DIR: path.join(data, "x"), HOOKPLANE_WORKSPACES_DIR: data })).toThrow(CodeExecutionConfigError);
    // A setting that would weaken the boundary refuses code rather than guessing.
    expect(serverShellPolicy(inside).refusal).toMatch(/^running code is refused: HOOKPLANE_WORKSPACES_DIR/);
    expect(codeExecutionAllowed(inside)).toBe(false);
  });

  it("the network is none unless set to host", () => {
    expect(codeExecutionSettings({}).network).toBe("none");
    expect(codeExecutionSettings({ HOOKPLANE_SHELL_NETWORK: "host" }).network).toBe("host");
    expect(() => codeExecutionSettings({ HOOKPLANE_SHELL_NETWORK: "bridge" })).toThrow('HOOKPLANE_SHELL_NETWORK is "none" (the default) or "host", not "bridge"');
  });

  it("the sandbox hides the data directory, the workspaces, the app, the hooks folder and the server's home, never a system folder", () => {
    const data = temp("hookplane-cfg-data-");
    const hooks = temp("hookplane-cfg-hooks-");
    const mounts = sandboxMounts(codeExecutionSettings({ HOOKPLANE_DATA_DIR: data, HOOKPLANE_HOOKS_DIR: hooks }), { HOME: "/root" });
    expect(mounts.hide).toEqual(expect.arrayContaining([data, path.join(os.tmpdir(), "hookplane-workspaces"), process.cwd(), hooks, "/root"]));
    for (const dir of ["/", "/usr", "/etc", "/home", "/var"]) expect(mounts.hide).not.toContain(dir);
    expect(sandboxMounts(codeExecutionSettings({ HOOKPLANE_DATA_DIR: data }), { HOME: "/" }).hide).not.toContain("/");
    expect(mounts.privateTmp).toEqual(expect.arrayContaining(["/tmp", "/dev/shm"]));
  });

  it("at start: the workspaces folder exists and is not listable by others, the data directory is the server's alone", () => {
    // A data directory as an older start left it: readable by everyone.
    const data = path.join(temp("hookplane-cfg-data-"), "data");
    mkdirSync(data, { mode: 0o755 });
    const workspaces = path.join(temp("hookplane-cfg-ws-"), "workspaces");
    const env = { HOOKPLANE_DATA_DIR: data, HOOKPLANE_WORKSPACES_DIR: workspaces };
    const previous = { ...process.env };
    Object.assign(process.env, env);
    try {
      expect(statSync(data).mode & 0o777).toBe(0o755);
      const logged: string[] = [];
      prepareCodeExecution({ info: (_d, m) => logged.push(m), warn: (_d, m) => logged.push(m) });
      expect(statSync(workspaces).mode & 0o777).toBe(0o711);
      expect(statSync(data).mode & 0o777).toBe(0o700);
      expect(logged[0]).toMatch(/^running code is (off|on)/);
    } finally {
      for (const key of Object.keys(env)) {
        if (previous[key] === undefined) delete process.env[key];
        else process.env[key] = previous[key];
      }
    }
  });
});
