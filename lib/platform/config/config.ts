/**
 * The process's configuration: the environment parsed once with config-schema.ts, typed, and the
 * only module that reads `process.env` (an ESLint rule says so). The server, the worker and the
 * migration runner call `configOrExit()` first thing, so a bad value stops the start with a line
 * naming the variable (`HOOKPLANE_DB_POOL: expected a positive integer, got "abc"`), and every
 * later `getConfig()` (in server.ts's bundle and in Next's alike: the result is kept on
 * globalThis) returns the same object.
 */
import type { z } from "zod";
import { isPathInside } from "@/lib/core/workspace/workspace-path";
import { CLI_VARIABLES, CONFIG_PATTERNS, CONFIG_SCHEMA, SYSTEM_VARIABLES, TEST_VARIABLES, type ConfigName, type VariableSpec } from "./config-schema";

type Schema = typeof CONFIG_SCHEMA;
type Output<E> = E extends { schema: infer S extends z.ZodType } ? z.output<S> : never;
/** A variable with a default always has a value; one without may be undefined; a retired one is its raw text. */
type ValueOf<E> = E extends { retired: true } ? string | undefined : E extends { default: unknown } ? Output<E> : Output<E> | undefined;

export type ConfigValues = { readonly [K in ConfigName]: ValueOf<Schema[K]> };

/** A hook secret kept in the environment (`HOOKPLANE_SECRET_<NAME>` and its `_HOSTS`). */
export interface EnvSecret {
  variable: string;
  value: string;
  /** The raw `HOOKPLANE_SECRET_<NAME>_HOSTS`, checked where secrets are resolved. */
  hosts: string | undefined;
}

export interface Config extends ConfigValues {
  /** The variables of the schema that the environment set (the rest took their default). */
  readonly setVariables: ReadonlySet<ConfigName>;
  /** Retired variables that are set, and ignored. */
  readonly retiredSet: readonly string[];
  /** `HOOKPLANE_*` variables that are set but mean nothing here (a typo, most likely). */
  readonly unknownVariables: readonly string[];
  /** By secret name. */
  readonly envSecrets: ReadonlyMap<string, EnvSecret>;
  /**
   * What commands the server starts (the shell tool, command hooks) begin from: this process's
   * operating-system variables (SYSTEM_VARIABLES) and those HOOKPLANE_HOOK_ENV_PASSTHROUGH names.
   */
  readonly commandEnvironment: Readonly<Record<string, string>>;
}

export interface ConfigIssue {
  variable: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(issues.map((i) => `${i.variable}: ${i.message}`).join("\n"));
    this.name = "ConfigError";
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const SECRET_VARIABLE = /^HOOKPLANE_SECRET_([A-Z][A-Z0-9_]*)$/;

/** Names that may be set beside the server's own without being a mistake. */
const KNOWN_ELSEWHERE = new Set([...Object.keys(CLI_VARIABLES), ...Object.keys(TEST_VARIABLES).flatMap((k) => k.split(/,\s*/))]);

function received(spec: VariableSpec, raw: string): string {
  return spec.secret ? `a value of ${raw.length} characters (not shown)` : JSON.stringify(raw);
}

/** Parses `env` against the schema; throws ConfigError listing every bad variable. */
export function loadConfig(env: Env): Config {
  const issues: ConfigIssue[] = [];
  const values: Record<string, unknown> = {};
  const setVariables = new Set<ConfigName>();
  for (const [name, spec] of Object.entries(CONFIG_SCHEMA) as [ConfigName, VariableSpec][]) {
    const given = env[name];
    const isSet = given !== undefined && given.trim() !== "";
    if (isSet) setVariables.add(name);
    const raw = isSet ? given : typeof spec.default === "function" ? spec.default() : spec.default;
    if (raw === undefined) {
      values[name] = undefined;
      continue;
    }
    const parsed = spec.schema.safeParse(raw);
    if (parsed.success) values[name] = parsed.data;
    else issues.push({ variable: name, message: `${parsed.error.issues[0]?.message ?? "not valid"}, got ${received(spec, raw)}` });
  }
  if (issues.length === 0) issues.push(...crossChecks(values as unknown as ConfigValues));
  if (issues.length > 0) throw new ConfigError(issues);

  const envSecrets = new Map<string, EnvSecret>();
  const unknownVariables: string[] = [];
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith("HOOKPLANE_") || variable in CONFIG_SCHEMA || KNOWN_ELSEWHERE.has(variable)) continue;
    const secret = SECRET_VARIABLE.exec(variable)?.[1];
    const hostsOf = secret?.endsWith("_HOSTS") ? secret.slice(0, -"_HOSTS".length) : undefined;
    if (secret && value && !(hostsOf && env[`HOOKPLANE_SECRET_${hostsOf}`])) {
      envSecrets.set(secret, { variable, value, hosts: env[`${variable}_HOSTS`] || undefined });
    } else if (!secret) {
      unknownVariables.push(variable);
    }
  }

  const passthrough = (values.HOOKPLANE_HOOK_ENV_PASSTHROUGH as string[] | undefined) ?? [];
  const commandEnvironment: Record<string, string> = {};
  for (const name of [...SYSTEM_VARIABLES, ...passthrough]) {
    const value = env[name];
    if (value !== undefined) commandEnvironment[name] = value;
  }

  return Object.freeze({
    ...(values as unknown as ConfigValues),
    setVariables,
    retiredSet: (Object.keys(CONFIG_SCHEMA) as ConfigName[]).filter((n) => (CONFIG_SCHEMA[n] as VariableSpec).retired && setVariables.has(n)),
    unknownVariables: unknownVariables.sort(),
    envSecrets,
    commandEnvironment: Object.freeze(commandEnvironment),
  });
}

/** What no single variable can say: combinations that would weaken a boundary. */
function crossChecks(values: ConfigValues): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const data = values.HOOKPLANE_DATA_DIR;
  const workspaces = values.HOOKPLANE_WORKSPACES_DIR;
  if (isPathInside(data, workspaces) || isPathInside(workspaces, data)) {
    issues.push({
      variable: "HOOKPLANE_WORKSPACES_DIR",
      message: `${workspaces} and HOOKPLANE_DATA_DIR (${data}) must not contain each other: shell steps would reach secret.key and the database files`,
    });
  }
  if (values.HOOKPLANE_METRICS_PORT !== undefined && values.HOOKPLANE_METRICS_TOKEN === undefined) {
    issues.push({ variable: "HOOKPLANE_METRICS_PORT", message: "needs HOOKPLANE_METRICS_TOKEN: a worker's metrics port answers only to that token" });
  }
  if ((values.HOOKPLANE_SMTP_USER === undefined) !== (values.HOOKPLANE_SMTP_PASSWORD === undefined)) {
    const missing = values.HOOKPLANE_SMTP_USER === undefined ? "HOOKPLANE_SMTP_USER" : "HOOKPLANE_SMTP_PASSWORD";
    issues.push({ variable: missing, message: "HOOKPLANE_SMTP_USER and HOOKPLANE_SMTP_PASSWORD go together: set both or neither" });
  }
  if (values.HOOKPLANE_DB_POOLER === "transaction" && values.DATABASE_DIRECT_URL === undefined) {
    issues.push({
      variable: "DATABASE_DIRECT_URL",
      message:
        "needed with HOOKPLANE_DB_POOLER=transaction: LISTEN (live views, approvals, revocations) and the migrations' lock need a session of their own, which a pooler in transaction mode does not keep; set it to PostgreSQL's own address",
    });
  }
  return issues;
}

const KEY = Symbol.for("hookplane.config");
type GlobalWithConfig = typeof globalThis & { [KEY]?: Config };

/** The configuration of this process, parsed from its environment on first use. */
export function getConfig(): Config {
  const g = globalThis as GlobalWithConfig;
  return (g[KEY] ??= loadConfig(process.env));
}

/** Tests that change process.env: the next getConfig() parses it again. */
export function resetConfig(): void {
  delete (globalThis as GlobalWithConfig)[KEY];
}

/**
 * First thing at start (server, worker, migration runner): the configuration, or a message on
 * stderr naming each bad variable and exit code 1. Plain stderr, not the logger: the logger's
 * own level is one of the values being checked.
 */
export function configOrExit(): Config {
  try {
    return getConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`hookplane: the configuration is not valid:\n${error.issues.map((i) => `  ${i.variable}: ${i.message}`).join("\n")}\n`);
    process.exit(1);
  }
}

/**
 * What the start log warns of: set variables that mean nothing here (a typo, most likely), and a
 * break glass left in place.
 */
export function configWarnings(config: Config): string[] {
  return [
    ...config.unknownVariables.map((name) => `${name} is set but Hookplane reads no such variable (docs/operations.md: Environment)`),
    ...(config.HOOKPLANE_PASSWORD_BREAK_GLASS ? ["HOOKPLANE_PASSWORD_BREAK_GLASS is set: admins may sign in with a password even while password sign-in is off; unset it once single sign-on works"] : []),
  ];
}

/**
 * The log level, for the logger made when its module loads: LOG_LEVEL alone, parsed by its
 * schema, before the whole configuration is checked (a bad value is logged at info, and
 * configOrExit reports it).
 */
export function logLevel(): string {
  const parsed = CONFIG_SCHEMA.LOG_LEVEL.schema.safeParse(process.env.LOG_LEVEL?.trim() || CONFIG_SCHEMA.LOG_LEVEL.default);
  return parsed.success ? parsed.data : CONFIG_SCHEMA.LOG_LEVEL.default;
}

/** The names docs/operations.md documents: the schema's, its patterns, the CLI's and the tests'. */
export function documentedNames() {
  return {
    server: Object.keys(CONFIG_SCHEMA) as ConfigName[],
    patterns: Object.keys(CONFIG_PATTERNS),
    cli: Object.keys(CLI_VARIABLES),
    tests: Object.keys(TEST_VARIABLES),
  };
}

export interface ConfigRow {
  name: ConfigName;
  /** As Settings shows it: secrets only as set or unset. */
  value: string;
  /** `environment`: the operator set it; `default`: it was not set. */
  source: "environment" | "default";
  description: string;
}

/** The configuration as Settings lists it: every variable, its value in force and where it came from. */
export function configRows(config: Config = getConfig()): ConfigRow[] {
  return (Object.entries(CONFIG_SCHEMA) as [ConfigName, VariableSpec][]).map(([name, spec]) => {
    const source = config.setVariables.has(name) ? "environment" : "default";
    const value = config[name] as unknown;
    return { name, value: spec.secret ? (value === undefined ? "unset" : "set (not shown)") : shown(value, spec), source, description: spec.description };
  });
}

function shown(value: unknown, spec: VariableSpec): string {
  if (spec.retired) return value === undefined ? "unset" : `${JSON.stringify(value)} (ignored)`;
  if (value === undefined) return spec.defaultText?.replaceAll("`", "") ?? "unset";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none";
  return String(value);
}
