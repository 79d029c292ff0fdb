/**
 * Every environment variable Hookplane's server, worker and migration runner read: one entry
 * each, with the zod schema its value must pass, its default and what it means. config.ts parses
 * the environment with it once at start; docs/operations.md's table is generated from it
 * (`npm run docs:config`) and a test checks the two agree. A new variable is one entry here.
 *
 * `default` is the raw value an unset variable takes (parsed by the same schema, so the documented
 * default is the one that applies); without one, an unset variable reads as undefined, and
 * `defaultText` says what that means. `secret` values are never shown or echoed in an error.
 * `readBy` names a script that reads the variable itself because it runs before any of this
 * code exists (the start script, Next's build config): listed and checked here all the same.
 */
import os from "node:os";
import path from "node:path";
import { DATABASE_VARIABLES } from "./config-database-variables";
import { TELEMETRY_VARIABLES } from "./config-telemetry-variables";
import { PROVIDER_URL, flag, folder, hostList, ignored, integer, oneOf, secretKey, text, token, url, variableNames } from "./config-values";
import type { VariableSpec } from "./variable-spec";

export type { VariableSpec };

export const CONFIG_SCHEMA = {
  PORT: {
    schema: integer({ min: 0, max: 65535, expected: "a port number from 0 to 65535" }),
    default: "3000",
    description: "HTTP, API and WebSocket port",
  },
  HOSTNAME: {
    schema: text(),
    default: "127.0.0.1",
    description: "interface to listen on (`0.0.0.0`: every interface, as in the container image)",
  },
  ...DATABASE_VARIABLES,
  HOOKPLANE_WORKER_CONCURRENCY: {
    schema: integer({ min: 0 }),
    default: "10",
    description: "runs a process works at once; `0` makes a web process serve only (a worker works at least 1)",
  },
  HOOKPLANE_APPROVAL_HOLD_MS: {
    schema: integer({ min: 0 }),
    default: "30000",
    description: "how long a run keeps its worker while a person decides, before it parks (it resumes on the decision)",
  },
  HOOKPLANE_LEASE_MS: {
    schema: integer({ min: 1 }),
    default: "30000",
    description: "a worker's claim on a run; a dead worker's runs go to another after this",
  },
  HOOKPLANE_SWEEP_MS: {
    schema: integer({ min: 1 }),
    default: "2000",
    description: "how often a worker looks for orphaned runs, timed-out approvals and due schedules",
  },
  HOOKPLANE_SESSION_IDLE_MS: {
    schema: integer({ min: 1 }),
    default: "21600000",
    description: "an outside session (Claude Code) with no event for this long is ended as a timeout",
  },
  HOOKPLANE_STEP_GRACE_MS: {
    schema: integer({ min: 0 }),
    default: "10000",
    description: "on SIGTERM, how long steps in flight may finish (and be recorded once) before they are cut short and recorded as interrupted",
  },
  HOOKPLANE_ALLOW_CODE_EXECUTION: {
    schema: flag(),
    default: "0",
    description:
      "`1` lets code run on the server: an agent's `shell` tool, `command` and `code` hooks, `tool` hooks calling the shell (only admins configure or try them). Off, they are refused with the reason",
  },
  HOOKPLANE_ALLOW_COMMAND_HOOKS: {
    schema: ignored(),
    defaultText: "unset",
    description: "no longer read (replaced by `HOOKPLANE_ALLOW_CODE_EXECUTION`); set, the start log and Settings say it is ignored",
    retired: true,
  },
  HOOKPLANE_ALLOW_CODE_HOOKS: {
    schema: ignored(),
    defaultText: "unset",
    description: "no longer read (replaced by `HOOKPLANE_ALLOW_CODE_EXECUTION`); set, the start log and Settings say it is ignored",
    retired: true,
  },
  HOOKPLANE_WORKSPACES_DIR: {
    schema: folder(),
    default: () => path.join(os.tmpdir(), "hookplane-workspaces"),
    defaultText: "`<tmpdir>/hookplane-workspaces`",
    description: "where run workspaces live (`<dir>/<run id>`); must not contain or be inside the data directory",
  },
  HOOKPLANE_SHELL_NETWORK: {
    schema: oneOf(["none", "host"]),
    default: "none",
    description: "`host` gives sandboxed shell steps the server's network; `none` gives them none",
  },
  HOOKPLANE_HOOKS_DIR: {
    schema: folder(),
    defaultText: "unset",
    description:
      "the operator's folder of `defineHook` modules: `code` hook actions, and the transform hooks an agent's `codeHooks` (or a run's, overriding it) names (`lib/core/agent/README.md`); loaded only with `HOOKPLANE_ALLOW_CODE_EXECUTION`",
  },
  HOOKPLANE_HOOK_ENV_PASSTHROUGH: {
    schema: variableNames(),
    defaultText: "unset",
    description:
      "comma-separated names of server environment variables `command` hooks may see (hook commands never get the server's environment otherwise; `HOOKPLANE_*`, `DATABASE_URL` and `DATABASE_DIRECT_URL` are refused)",
  },
  HOOKPLANE_SECURE_COOKIES: {
    schema: flag(),
    default: "0",
    description: "`1` marks the session cookie `Secure` and sends HSTS (behind HTTPS)",
  },
  HOOKPLANE_TRUST_PROXY: {
    schema: flag(),
    default: "0",
    description:
      "`1` takes the client's address (for the sign-in throttle) from the last `X-Forwarded-For` entry; set it only behind a proxy that appends one. The proxy must pass `Host` (or `X-Forwarded-Host`) through, since writes are checked against it",
  },
  HOOKPLANE_PASSWORD_BREAK_GLASS: {
    schema: flag(),
    default: "0",
    description:
      "`1` lets instance admins sign in with their password while password sign-in is turned off (single sign-on broken: docs/security.md, Single sign-on); each such sign-in is an audit row `sign_in.break_glass`. Unset it once single sign-on works again",
  },
  HOOKPLANE_SECRET_KEY: {
    schema: secretKey(),
    defaultText: "unset",
    description:
      "32-byte key (base64 or hex) sealing stored secrets, and from which the ledger signing key is derived (security.md, The signed record); unset: `secret.key` (mode 0600) made once in `HOOKPLANE_DATA_DIR`. Set it when several machines share one PostgreSQL",
    secret: true,
  },
  HOOKPLANE_ALLOW_PRIVATE_HOSTS: {
    schema: hostList(),
    defaultText: "unset",
    description:
      "the outbound allow-list: comma-separated hosts that webhooks, notices and the `http_request` tool may reach although they are (or resolve to) private, loopback, link-local or metadata addresses (`127.0.0.1`, `ci.corp`, `*.corp.example`; `*` = every host); plain `http://` goes only to these hosts. Unset = public addresses only",
  },
  HOOKPLANE_ALLOW_PRIVATE_NETWORK: {
    schema: flag(),
    default: "0",
    description: "older name: `1` is the allow-list `*`",
  },
  HOOKPLANE_WEBHOOK_ALLOW_HOSTS: {
    schema: hostList(),
    defaultText: "unset",
    description: "older name: its hosts join the allow-list, and while it is set webhooks may call only those hosts",
  },
  HOOKPLANE_SLACK_BASE_URL: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "`https://slack.com/api`",
    description: "where Slack notices go, and where their messages are updated (operator configuration: its host passes the guard even when private)",
  },
  HOOKPLANE_DISCORD_BASE_URL: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "`https://discord.com/api/v10`",
    description: "where Discord notices go (like `HOOKPLANE_SLACK_BASE_URL`)",
  },
  HOOKPLANE_PUBLIC_URL: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "`http://127.0.0.1:<PORT>`",
    description: "where people reach the dashboard: notices link to runs and approvals under it, and decision links start with it",
  },
  HOOKPLANE_SLACK_SIGNING_SECRET: {
    schema: token(8),
    defaultText: "unset",
    description:
      "the Slack app's signing secret: Slack approval messages get interactive buttons, verified at `/api/integrations/slack/interactions`; unset, their buttons open the decision links",
    secret: true,
  },
  OPENAI_API_KEY: {
    schema: text(),
    defaultText: "unset",
    description: "for `openai:<model>` agents",
    secret: true,
  },
  OPENAI_BASE_URL: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "the public API",
    description: "for `openai:<model>` agents: any OpenAI-compatible server",
  },
  ANTHROPIC_API_KEY: {
    schema: text(),
    defaultText: "unset",
    description: "for `anthropic:<model>` agents",
    secret: true,
  },
  ANTHROPIC_BASE_URL: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "the public API",
    description: "for `anthropic:<model>` agents",
  },
  ...TELEMETRY_VARIABLES,
  HOOKPLANE_ALERT_EVAL_MS: {
    schema: integer({ min: 0 }),
    default: "60000",
    description:
      "how often alert rules are evaluated (at least 1000), once per period across every process that works runs; `0`: this process does not evaluate",
  },
  HOOKPLANE_SMTP_HOST: {
    schema: text(),
    defaultText: "unset",
    description: "the SMTP server alert emails go through; unset, rules cannot have email targets",
  },
  HOOKPLANE_SMTP_PORT: {
    schema: integer({ min: 1, max: 65535, expected: "a port number from 1 to 65535" }),
    defaultText: "`587` (`465` with `HOOKPLANE_SMTP_SECURE`)",
    description: "the SMTP server's port",
  },
  HOOKPLANE_SMTP_SECURE: {
    schema: flag(),
    default: "0",
    description: "`1`: TLS from the first byte (port 465); otherwise STARTTLS when the server offers it",
  },
  HOOKPLANE_SMTP_USER: {
    schema: text(),
    defaultText: "unset",
    description: "the SMTP login (with `HOOKPLANE_SMTP_PASSWORD`; both or neither)",
  },
  HOOKPLANE_SMTP_PASSWORD: {
    schema: text(),
    defaultText: "unset",
    description: "the SMTP password (masked in every notice and recorded error)",
    secret: true,
  },
  HOOKPLANE_SMTP_FROM: {
    schema: text(),
    default: "Hookplane <hookplane@localhost>",
    description: "the sender of alert emails",
  },
  LOG_LEVEL: {
    schema: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    default: "info",
    description: "pino log level",
  },
  HOOKPLANE_SKIP_BUILD: {
    schema: flag(),
    default: "0",
    description: "`1`: `npm start` serves the build on disk without checking it against the sources (containers)",
    readBy: "scripts/start.mjs",
  },
  NEXT_DIST_DIR: {
    schema: text(),
    default: ".next",
    description: "the build folder (a separate one lets builds run side by side)",
    readBy: "next.config.ts",
  },
} as const satisfies Record<string, VariableSpec>;

export type ConfigName = keyof typeof CONFIG_SCHEMA;

/** Families of variables named by the operator (`HOOKPLANE_SECRET_SLACK_TOKEN`). */
export const CONFIG_PATTERNS = {
  "HOOKPLANE_SECRET_<NAME>": {
    defaultText: "unset",
    description: "a hook secret kept in the environment; used when the secret store has no `NAME` (Settings shows which one a hook gets)",
  },
  "HOOKPLANE_SECRET_<NAME>_HOSTS": {
    defaultText: "unset",
    description:
      "comma-separated hosts that secret may be sent to (`api.example.com`, `*.slack.com`); without it the secret goes nowhere outbound (a `command` hook's environment only)",
  },
} as const;

/** Read by the `hookplane` command (bin/hookplane.mjs) where the agent runs, not by the server. */
export const CLI_VARIABLES = {
  HOOKPLANE_URL: "the server (default `http://127.0.0.1:3000`)",
  HOOKPLANE_TOKEN: "the `hookplane hook` CLI's credential: a person's bridge credential (or an operator API token); default the one `hookplane login` stored",
  HOOKPLANE_CONFIG_DIR: "where `hookplane login` stores the credential (default `$XDG_CONFIG_HOME/hookplane`, else `~/.config/hookplane`)",
  HOOKPLANE_AGENT: "the agent, when `--agent` is not given",
  HOOKPLANE_TIMEOUT_MS: "how long the CLI waits for an answer, when `--timeout-ms` is not given",
  HOOKPLANE_CALLER_CHECK_MS: "how often the CLI checks that its caller still runs (default 500)",
} as const;

/** Read only by tests and benchmarks; no server reads them. */
export const TEST_VARIABLES = {
  DATABASE_URL: "tests and benchmarks: the PostgreSQL server to create their own databases on",
  CHROMIUM_PATH: "the browser of the e2e tests and `bench:ui` (default `/usr/bin/chromium`)",
  E2E_PORT: "the port of the e2e suite's server (default 3210)",
  CI: "set by CI: the e2e suite retries a failed test once",
  FUZZ_RUNS: "cases per route of the hostile-input suite (default 300)",
  FUZZ_SEED: "its random seed, to replay a failure",
  "HOOKPLANE_CLAUDE_BIN, HOOKPLANE_CODEX_BIN, HOOKPLANE_GEMINI_BIN, HOOKPLANE_COPILOT_BIN": "the coding agents' CLIs the bridge tests drive when installed",
  "BENCH_*": "the benchmarks' sizes (each benchmark's header lists its own)",
  "FLOOD_BODIES, FLOOD_BODY_MB, FLOOD_UPGRADES": "`bench:hostile`'s flood",
} as const;

/**
 * Operating-system variables a process hands to the commands it starts (never configuration):
 * the shell tool's and command hooks' base environment.
 */
export const SYSTEM_VARIABLES = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"] as const;
