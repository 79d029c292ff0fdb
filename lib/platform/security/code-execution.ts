/**
 * Running code on the server: one switch, read here and nowhere else (hook-model.md, Trust).
 * `HOOKPLANE_ALLOW_CODE_EXECUTION` covers an agent's `shell` tool, `tool` hooks naming it,
 * `command` and `code` hooks, and trying any of them in the hook test; the admin role is checked
 * where they are saved or tried (lib/core/hooks/trust.ts says which they are). The hook runtime, the
 * tool registry, the code hook loader and the Settings page all call `codeExecutionSettings`, so
 * what Settings shows is what runs.
 *
 * Where shell steps run is decided here too: workspaces live outside the data directory (which
 * holds pgdata and secret.key), and the sandbox hides the data directory, the other workspaces,
 * the app, the server's home and the database's local socket from every step.
 */
import { chmodSync, mkdirSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ShellLauncher } from "@/lib/core/hooks/ports";
import { CODE_EXECUTION_OFF } from "@/lib/core/hooks/trust";
import { getConfig, type Config } from "@/lib/platform/config/config";
import { detectShellSandbox, giveWorkspace, sandboxLauncher, type ShellSandbox } from "./shell-sandbox";

export const CODE_EXECUTION_SWITCH = "HOOKPLANE_ALLOW_CODE_EXECUTION";

export type ShellNetwork = "none" | "host";

export interface CodeExecutionSettings {
  enabled: boolean;
  /**
   * Switches of earlier versions that are set, and ignored (HOOKPLANE_ALLOW_COMMAND_HOOKS,
   * HOOKPLANE_ALLOW_CODE_HOOKS: a part switched on alone is how the shell tool ran with "command
   * hooks off"). Settings names them.
   */
  retiredSwitchesSet: string[];
  /** Where run workspaces live: `<workspacesDir>/<run id>`. */
  workspacesDir: string;
  dataDir: string;
  /** `none`: shell steps get a network namespace of their own (no network at all). */
  network: ShellNetwork;
  hooksDir: string | undefined;
}

/**
 * The switch and where steps run, from the configuration (lib/platform/config checked the values
 * at start, and that the workspaces and the data directory do not contain each other).
 */
export function codeExecutionSettings(config: Config = getConfig()): CodeExecutionSettings {
  return {
    enabled: config.HOOKPLANE_ALLOW_CODE_EXECUTION,
    retiredSwitchesSet: [...config.retiredSet],
    workspacesDir: config.HOOKPLANE_WORKSPACES_DIR,
    dataDir: config.HOOKPLANE_DATA_DIR,
    network: config.HOOKPLANE_SHELL_NETWORK,
    hooksDir: config.HOOKPLANE_HOOKS_DIR,
  };
}

export function codeExecutionAllowed(config: Config = getConfig()): boolean {
  return config.HOOKPLANE_ALLOW_CODE_EXECUTION;
}

/** Why code does not run here, or undefined when it does. */
export function codeExecutionRefusal(settings: CodeExecutionSettings): string | undefined {
  return settings.enabled ? undefined : CODE_EXECUTION_OFF;
}

/**
 * The workspaces folder, created on first use: traversable but not listable by others (0711),
 * so a step that runs outside a sandbox cannot list the other runs' folders.
 */
export function ensureWorkspacesDir(settings: CodeExecutionSettings = codeExecutionSettings()): string {
  const dir = settings.workspacesDir;
  mkdirSync(dir, { recursive: true, mode: 0o711 });
  if (process.getuid && statSync(dir).uid === process.getuid()) chmodSync(dir, 0o711);
  return dir;
}

/** System folders never hidden, even when the server runs from one (cwd `/`). */
const NEVER_HIDDEN = new Set(["/", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/proc", "/dev", "/sys", "/var", "/home"]);

/** PostgreSQL's default local socket folders: with `trust` for local users, a socket is a way in. */
const DATABASE_SOCKET_DIRS = ["/run/postgresql", "/var/run/postgresql"];

/** What a sandboxed step must not see, and the folders it gets private, empty copies of. */
export function sandboxMounts(settings: CodeExecutionSettings, home: string | undefined = getConfig().commandEnvironment.HOME) {
  const candidates = [settings.dataDir, settings.workspacesDir, process.cwd(), settings.hooksDir, home, os.homedir(), ...DATABASE_SOCKET_DIRS];
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const unique = (paths: (string | undefined)[]) => [...new Set(paths.filter((p): p is string => Boolean(p) && path.isAbsolute(p!)).map(real))];
  const hide = unique(candidates).filter((p) => !NEVER_HIDDEN.has(p));
  // /tmp is private to each step (the workspace under it is mounted back in).
  const privateTmp = unique(["/tmp", "/var/tmp", "/dev/shm", os.tmpdir()]);
  return { hide, privateTmp };
}

export interface ShellPolicy {
  /** Set when shell steps must not run: the tool answers this instead of starting anything. */
  refusal: string | undefined;
  launcher: ShellLauncher;
  /**
   * Called with a run's workspace when its tools are set up, before any tool writes there: the
   * folder goes to the user shell steps run as, so files the server writes follow it.
   */
  prepareWorkspace?: (dir: string) => void;
}

/**
 * The shell of this server: refused while the switch is off, else started in the sandbox the
 * machine allows (detected once per process), with the mounts of the current settings.
 */
export function serverShellPolicy(config: Config = getConfig()): ShellPolicy {
  const settings = codeExecutionSettings(config);
  const refusal = codeExecutionRefusal(settings);
  if (refusal) return { refusal, launcher: refuseToLaunch(refusal) };
  const sandbox = detectShellSandbox();
  return {
    refusal: undefined,
    launcher: sandboxLauncher(sandbox, { ...sandboxMounts(settings, config.commandEnvironment.HOME), network: settings.network }),
    prepareWorkspace: (dir) => giveWorkspace(dir, sandbox.runAs),
  };
}

/** A launcher that never starts anything: the last line should a caller skip the refusal. */
function refuseToLaunch(reason: string): ShellLauncher {
  return () => {
    throw new Error(reason);
  };
}

export interface CodeExecutionStatus {
  switchName: string;
  enabled: boolean;
  /** Whether the operator set the switch, or it is off by default. */
  setInEnvironment: boolean;
  retiredSwitchesSet: string[];
  workspacesDir: string;
  network: ShellNetwork;
  sandbox: ShellSandbox;
}

/** What Settings shows and the server logs at start: read from the same functions the runtime uses. */
export function codeExecutionStatus(config: Config = getConfig()): CodeExecutionStatus {
  const sandbox = detectShellSandbox();
  const settings = codeExecutionSettings(config);
  return {
    switchName: CODE_EXECUTION_SWITCH,
    enabled: settings.enabled,
    setInEnvironment: config.setVariables.has(CODE_EXECUTION_SWITCH),
    retiredSwitchesSet: settings.retiredSwitchesSet,
    workspacesDir: settings.workspacesDir,
    network: sandbox.kind === "none" ? "host" : settings.network,
    sandbox,
  };
}

/**
 * At start (server and worker): detect the sandbox, create the workspaces folder, close the data
 * directory to other users (0700: pgdata and secret.key are the server's alone, whatever a step
 * runs as), and say in the log what holds.
 */
export function prepareCodeExecution(log: { info(details: object, message: string): void; warn(details: object, message: string): void }) {
  const settings = codeExecutionSettings();
  ensureWorkspacesDir(settings);
  try {
    if (process.getuid && statSync(settings.dataDir).uid === process.getuid()) chmodSync(settings.dataDir, 0o700);
  } catch {
    // No data directory (PostgreSQL with HOOKPLANE_SECRET_KEY): nothing to close.
  }
  const status = codeExecutionStatus();
  const { sandbox } = status;
  log.info(
    { switch: status.switchName, enabled: status.enabled, sandbox: sandbox.kind, runAs: sandbox.runAs?.name, network: status.network, orphanGuard: sandbox.orphanGuard, workspacesDir: status.workspacesDir, notes: sandbox.notes },
    status.enabled ? `running code is on; shell steps run in the ${sandbox.kind} sandbox` : `running code is off (${status.switchName})`,
  );
  if (status.retiredSwitchesSet.length > 0) {
    log.warn({ ignored: status.retiredSwitchesSet }, `${status.retiredSwitchesSet.join(", ")} no longer read: ${status.switchName} is the one switch for running code`);
  }
}
