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
import { resolveDataDir } from "@/db/client";
import type { ShellLauncher } from "@/lib/core/hooks/ports";
import { CODE_EXECUTION_OFF } from "@/lib/core/hooks/trust";
import { detectShellSandbox, giveWorkspace, sandboxLauncher, type ShellSandbox } from "./shell-sandbox";
import { isPathInside } from "@/lib/core/workspace/workspace-path";

export const CODE_EXECUTION_SWITCH = "HOOKPLANE_ALLOW_CODE_EXECUTION";

/**
 * Switches of earlier versions, each covering a part (command hooks, code hooks). They are no
 * longer read: a part switched on alone is how the shell tool ran with "command hooks off".
 * Settings names them when they are still set.
 */
export const RETIRED_SWITCHES = ["HOOKPLANE_ALLOW_COMMAND_HOOKS", "HOOKPLANE_ALLOW_CODE_HOOKS"] as const;

export type ShellNetwork = "none" | "host";

export interface CodeExecutionSettings {
  enabled: boolean;
  /** Retired switches that are set (and ignored). */
  retiredSwitchesSet: string[];
  /** Where run workspaces live: `<workspacesDir>/<run id>`. */
  workspacesDir: string;
  dataDir: string;
  /** `none`: shell steps get a network namespace of their own (no network at all). */
  network: ShellNetwork;
  hooksDir: string | undefined;
}

export class CodeExecutionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CodeExecutionConfigError";
  }
}

const isOn = (value: string | undefined) => value === "1" || value === "true";


/** Throws CodeExecutionConfigError on a setting that would weaken the boundary; never guesses. */
export function codeExecutionSettings(env: Record<string, string | undefined> = process.env): CodeExecutionSettings {
  const dataDir = resolveDataDir(env);
  const workspacesDir = env.HOOKPLANE_WORKSPACES_DIR
    ? path.resolve(/*turbopackIgnore: true*/ env.HOOKPLANE_WORKSPACES_DIR)
    : path.join(os.tmpdir(), "hookplane-workspaces");
  if (isPathInside(dataDir, workspacesDir) || isPathInside(workspacesDir, dataDir)) {
    throw new CodeExecutionConfigError(
      `HOOKPLANE_WORKSPACES_DIR (${workspacesDir}) and HOOKPLANE_DATA_DIR (${dataDir}) must not contain each other: shell steps would reach secret.key and the database files`,
    );
  }
  const network = env.HOOKPLANE_SHELL_NETWORK ?? "none";
  if (network !== "none" && network !== "host") {
    throw new CodeExecutionConfigError(`HOOKPLANE_SHELL_NETWORK is "none" (the default) or "host", not ${JSON.stringify(network)}`);
  }
  return {
    enabled: isOn(env[CODE_EXECUTION_SWITCH]),
    retiredSwitchesSet: RETIRED_SWITCHES.filter((name) => env[name] !== undefined && env[name] !== ""),
    workspacesDir,
    dataDir,
    network,
    hooksDir: env.HOOKPLANE_HOOKS_DIR ? path.resolve(/*turbopackIgnore: true*/ env.HOOKPLANE_HOOKS_DIR) : undefined,
  };
}

/** The switch, read safely: a configuration error means off (and says so in Settings). */
export function codeExecutionAllowed(env: Record<string, string | undefined> = process.env): boolean {
  try {
    return codeExecutionSettings(env).enabled;
  } catch {
    return false;
  }
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
export function sandboxMounts(settings: CodeExecutionSettings, env: Record<string, string | undefined> = process.env) {
  const candidates = [settings.dataDir, settings.workspacesDir, process.cwd(), settings.hooksDir, env.HOME, os.homedir(), ...DATABASE_SOCKET_DIRS];
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
export function serverShellPolicy(env: Record<string, string | undefined> = process.env): ShellPolicy {
  let settings: CodeExecutionSettings;
  try {
    settings = codeExecutionSettings(env);
  } catch (error) {
    return { refusal: `running code is refused: ${(error as Error).message}`, launcher: refuseToLaunch((error as Error).message) };
  }
  const refusal = codeExecutionRefusal(settings);
  if (refusal) return { refusal, launcher: refuseToLaunch(refusal) };
  const sandbox = detectShellSandbox();
  return {
    refusal: undefined,
    launcher: sandboxLauncher(sandbox, { ...sandboxMounts(settings, env), network: settings.network }),
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
  retiredSwitchesSet: string[];
  configError?: string;
  workspacesDir?: string;
  network?: ShellNetwork;
  sandbox: ShellSandbox;
}

/** What Settings shows and the server logs at start: read from the same functions the runtime uses. */
export function codeExecutionStatus(env: Record<string, string | undefined> = process.env): CodeExecutionStatus {
  const sandbox = detectShellSandbox();
  try {
    const settings = codeExecutionSettings(env);
    return {
      switchName: CODE_EXECUTION_SWITCH,
      enabled: settings.enabled,
      retiredSwitchesSet: settings.retiredSwitchesSet,
      workspacesDir: settings.workspacesDir,
      network: sandbox.kind === "none" ? "host" : settings.network,
      sandbox,
    };
  } catch (error) {
    return { switchName: CODE_EXECUTION_SWITCH, enabled: false, retiredSwitchesSet: [], configError: (error as Error).message, sandbox };
  }
}

/**
 * At start (server and worker): detect the sandbox, create the workspaces folder, close the data
 * directory to other users (0700: pgdata and secret.key are the server's alone, whatever a step
 * runs as), and say in the log what holds. A configuration error stops the start.
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
