import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_SCHEMA, type VariableSpec } from "./config-schema";
import { ConfigError, configRows, configWarnings, loadConfig } from "./config";

/** The one line loadConfig refuses `env` with. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe("the configuration schema", () => {
  it("refuses a bad value naming the variable, what it expected and what it got", () => {
    expect(refusal({ HOOKPLANE_DB_POOL: "abc" })).toBe('HOOKPLANE_DB_POOL: expected a positive integer, got "abc"');
    expect(refusal({ HOOKPLANE_DB_POOL: "0" })).toBe('HOOKPLANE_DB_POOL: expected a positive integer, got "0"');
    expect(refusal({ HOOKPLANE_DB_POOL: "2.5" })).toBe('HOOKPLANE_DB_POOL: expected a positive integer, got "2.5"');
    expect(refusal({ HOOKPLANE_WORKER_CONCURRENCY: "-1" })).toBe('HOOKPLANE_WORKER_CONCURRENCY: expected an integer ≥ 0, got "-1"');
    expect(refusal({ PORT: "70000" })).toBe('PORT: expected a port number from 0 to 65535, got "70000"');
    expect(refusal({ HOOKPLANE_SECURE_COOKIES: "sure" })).toBe('HOOKPLANE_SECURE_COOKIES: expected 1 or 0 (true/false, on/off, yes/no), got "sure"');
    expect(refusal({ HOOKPLANE_SHELL_NETWORK: "bridge" })).toBe('HOOKPLANE_SHELL_NETWORK: expected one of "none", "host", got "bridge"');
    expect(refusal({ LOG_LEVEL: "verbose" })).toBe('LOG_LEVEL: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent", got "verbose"');
    expect(refusal({ DATABASE_URL: "mysql://db/x" })).toBe("DATABASE_URL: expected a postgres:// URL, got a value of 12 characters (not shown)");
    expect(refusal({ HOOKPLANE_SLACK_BASE_URL: "slack.com/api" })).toBe('HOOKPLANE_SLACK_BASE_URL: expected an http(s) URL, got "slack.com/api"');
    expect(refusal({ HOOKPLANE_HOOK_ENV_PASSTHROUGH: "GIT_AUTHOR, DATABASE_URL" })).toMatch(/^HOOKPLANE_HOOK_ENV_PASSTHROUGH: expected comma-separated variable names/);
    expect(refusal({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "http://ci.corp/" })).toMatch(/^HOOKPLANE_ALLOW_PRIVATE_HOSTS: expected comma-separated host names/);
  });

  it("never echoes a secret's value", () => {
    const message = refusal({ HOOKPLANE_SECRET_KEY: "hunter2-is-not-32-bytes" });
    expect(message).toBe("HOOKPLANE_SECRET_KEY: expected 32 bytes as 64 hex characters or base64 (openssl rand -base64 32), got a value of 23 characters (not shown)");
    expect(message).not.toContain("hunter2");
  });

  it("a worker's metrics port needs the metrics token, and the token is no short word", () => {
    expect(refusal({ HOOKPLANE_METRICS_PORT: "9464" })).toBe("HOOKPLANE_METRICS_PORT: needs HOOKPLANE_METRICS_TOKEN: a worker's metrics port answers only to that token");
    expect(refusal({ HOOKPLANE_METRICS_TOKEN: "secret" })).toBe("HOOKPLANE_METRICS_TOKEN: expected at least 16 characters, got a value of 6 characters (not shown)");
    expect(loadConfig({ HOOKPLANE_METRICS_PORT: "9464", HOOKPLANE_METRICS_TOKEN: "0123456789abcdef" }).HOOKPLANE_METRICS_PORT).toBe(9464);
  });

  it("a pooler in transaction mode needs PostgreSQL's own address beside it, which no hook command may see", () => {
    expect(refusal({ DATABASE_URL: "postgres://db:6432/h", HOOKPLANE_DB_POOLER: "transaction" })).toBe(
      "DATABASE_DIRECT_URL: needed with HOOKPLANE_DB_POOLER=transaction: LISTEN (live views, approvals, revocations) and the migrations' lock need a session of their own, which a pooler in transaction mode does not keep; set it to PostgreSQL's own address",
    );
    expect(refusal({ HOOKPLANE_DB_POOLER: "session" })).toBe('HOOKPLANE_DB_POOLER: expected one of "none", "transaction", got "session"');
    expect(refusal({ DATABASE_DIRECT_URL: "db:5432/h" })).toBe("DATABASE_DIRECT_URL: expected a postgres:// URL, got a value of 9 characters (not shown)");
    const config = loadConfig({ DATABASE_URL: "postgres://db:6432/h", HOOKPLANE_DB_POOLER: "transaction", DATABASE_DIRECT_URL: "postgres://db:5432/h" });
    expect([config.HOOKPLANE_DB_POOLER, config.DATABASE_DIRECT_URL]).toEqual(["transaction", "postgres://db:5432/h"]);
    expect(loadConfig({}).HOOKPLANE_DB_POOLER).toBe("none");
    expect(refusal({ HOOKPLANE_HOOK_ENV_PASSTHROUGH: "GIT_AUTHOR, DATABASE_DIRECT_URL" })).toMatch(/^HOOKPLANE_HOOK_ENV_PASSTHROUGH: expected comma-separated variable names/);
  });

  it("lists every bad variable at once", () => {
    expect(refusal({ HOOKPLANE_DB_POOL: "many", HOOKPLANE_LEASE_MS: "soon" }).split("\n")).toEqual([
      'HOOKPLANE_DB_POOL: expected a positive integer, got "many"',
      'HOOKPLANE_LEASE_MS: expected a positive integer, got "soon"',
    ]);
  });

  it("refuses combinations that weaken a boundary", () => {
    const data = path.join(os.tmpdir(), "hp-config-data");
    expect(refusal({ HOOKPLANE_DATA_DIR: data, HOOKPLANE_WORKSPACES_DIR: path.join(data, "ws") })).toMatch(
      /^HOOKPLANE_WORKSPACES_DIR: .*hp-config-data\/ws and HOOKPLANE_DATA_DIR \(.*\) must not contain each other/,
    );
  });

  it("types the values, applies the documented defaults and counts an empty value as unset", () => {
    const config = loadConfig({ PORT: "8080", HOOKPLANE_ALLOW_CODE_EXECUTION: "TRUE", HOOKPLANE_ALLOW_PRIVATE_HOSTS: " 127.0.0.1, *.Corp.example ,,", HOOKPLANE_DB_POOL: "" });
    expect(config.PORT).toBe(8080);
    expect(config.HOOKPLANE_ALLOW_CODE_EXECUTION).toBe(true);
    expect(config.HOOKPLANE_ALLOW_PRIVATE_HOSTS).toEqual(["127.0.0.1", "*.corp.example"]);
    expect(config.HOOKPLANE_DB_POOL).toBe(10);
    expect(config.HOOKPLANE_DATA_DIR).toBe(path.resolve(".hookplane"));
    expect(config.HOOKPLANE_WORKSPACES_DIR).toBe(path.join(os.tmpdir(), "hookplane-workspaces"));
    expect(config.DATABASE_URL).toBeUndefined();
    expect([...config.setVariables].sort()).toEqual(["HOOKPLANE_ALLOW_CODE_EXECUTION", "HOOKPLANE_ALLOW_PRIVATE_HOSTS", "PORT"]);
  });

  it("every documented default passes its own schema", () => {
    for (const [name, spec] of Object.entries(CONFIG_SCHEMA) as [string, VariableSpec][]) {
      const raw = typeof spec.default === "function" ? spec.default() : spec.default;
      if (raw !== undefined) expect(spec.schema.safeParse(raw).success, name).toBe(true);
    }
  });

  it("collects the environment's secrets, names the unknown and the retired, and keeps commands' environment to the system and the pass-through list", () => {
    const config = loadConfig({
      HOOKPLANE_SECRET_SLACK_TOKEN: "xoxb-1",
      HOOKPLANE_SECRET_SLACK_TOKEN_HOSTS: "*.slack.com",
      HOOKPLANE_SECRET_KEY: "a".repeat(64),
      HOOKPLANE_DB_POOL_MAX: "5",
      HOOKPLANE_URL: "http://127.0.0.1:3000",
      HOOKPLANE_ALLOW_COMMAND_HOOKS: "true",
      HOOKPLANE_HOOK_ENV_PASSTHROUGH: "GIT_AUTHOR_NAME",
      GIT_AUTHOR_NAME: "Ada",
      PATH: "/usr/bin",
      OPENAI_API_KEY: "sk-not-for-commands",
    });
    expect([...config.envSecrets.entries()]).toEqual([["SLACK_TOKEN", { variable: "HOOKPLANE_SECRET_SLACK_TOKEN", value: "xoxb-1", hosts: "*.slack.com" }]]);
    expect(config.unknownVariables).toEqual(["HOOKPLANE_DB_POOL_MAX"]);
    expect(configWarnings(config)).toEqual(["HOOKPLANE_DB_POOL_MAX is set but Hookplane reads no such variable (docs/operations.md: Environment)"]);
    expect(configWarnings(loadConfig({ HOOKPLANE_PASSWORD_BREAK_GLASS: "1" }))).toEqual([
      "HOOKPLANE_PASSWORD_BREAK_GLASS is set: admins may sign in with a password even while password sign-in is off; unset it once single sign-on works",
    ]);
    expect(config.retiredSet).toEqual(["HOOKPLANE_ALLOW_COMMAND_HOOKS"]);
    expect(config.commandEnvironment).toEqual({ PATH: "/usr/bin", GIT_AUTHOR_NAME: "Ada" });
  });

  it("Settings' rows: the value in force, where it came from, secrets only as set or unset", () => {
    const rows = new Map(configRows(loadConfig({ PORT: "8080", OPENAI_API_KEY: "sk-abc", HOOKPLANE_ALLOW_CODE_EXECUTION: "1" })).map((r) => [r.name, r]));
    expect(rows.size).toBe(Object.keys(CONFIG_SCHEMA).length);
    expect(rows.get("PORT")).toMatchObject({ value: "8080", source: "environment" });
    expect(rows.get("HOOKPLANE_DB_POOL")).toMatchObject({ value: "10", source: "default" });
    expect(rows.get("HOOKPLANE_ALLOW_CODE_EXECUTION")).toMatchObject({ value: "on", source: "environment" });
    expect(rows.get("OPENAI_API_KEY")).toMatchObject({ value: "set (not shown)", source: "environment" });
    expect(rows.get("ANTHROPIC_API_KEY")).toMatchObject({ value: "unset", source: "default" });
  });
});
