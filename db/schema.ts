/**
 * The whole product's schema. One migration set in drizzle/ serves PGlite and PostgreSQL.
 */
import { sql } from "drizzle-orm";
import type { EventActor } from "@/lib/core/hooks/event";
import {
  bigint,
  bigserial,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();

/**
 * A chained row's position and hash as sealed before chain_links existed (drizzle/0036_chain_links.sql
 * copied them there); NULL on every row since, whose position and hash are only in chain_links:
 * a row is never updated.
 */
const chainColumns = () => ({
  /** Position in the chain, 1, 2, 3, ... with no gap. */
  chainSeq: bigint("chain_seq", { mode: "number" }),
  /** sha256(previous row's hash || canonical JSON of this row's content), hex. */
  hash: text("hash"),
});
/**
 * `partitionKey`: a table partitioned by time (the ledger) must include its partition key in every
 * unique index, so there the chain position is unique per partition; the sealer hands positions out
 * under one lock and verify names a duplicate as a break, so the chain stays gapless either way.
 */
const chainIndexes = (table: string, t: { id: AnyPgColumn; chainSeq: AnyPgColumn; hash: AnyPgColumn }, partitionKey?: AnyPgColumn) => [
  partitionKey
    ? uniqueIndex(`${table}_chain_seq_uq`).on(t.chainSeq, partitionKey).where(sql`chain_seq is not null`)
    : uniqueIndex(`${table}_chain_seq_uq`).on(t.chainSeq).where(sql`chain_seq is not null`),
  check(`${table}_chain_sealed_ck`, sql`(chain_seq is null) = (hash is null)`),
];
/**
 * The instance's signature over an anchor or a gap (lib/core/audit/chain-signature.ts), so a
 * bundle's verifier can tell the ones this instance wrote from invented ones. NULL on those written
 * before signing existed (drizzle/0026_chain_seals.sql).
 */
const statementSignature = () => ({
  keyId: text("key_id"),
  /** Ed25519, base64. */
  signature: text("signature"),
});

export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * The project every installation starts with: the migration that brought projects moved
 * everything that existed into it, and the first-run setup makes its first admin there.
 */
export const DEFAULT_PROJECT_ID = "00000000-0000-4000-8000-000000000001";
export const DEFAULT_PROJECT_SLUG = "default";

/**
 * A team's space: its agents, hooks, schedules, runs, approvals, secrets, price overrides,
 * alerts, tokens and audit entries carry its id, and every query of them names it
 * (lib/platform/auth/project-access.ts decides which project a request acts in).
 */
export const projects = pgTable("projects", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** In paths (`/api/v1/projects/<slug>/...`) and the dashboard's switcher: lowercase, digits, dashes. */
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

/** A person's role in one project; no row: no access to it (instance admins reach every project). */
export const projectMembers = pgTable(
  "project_members",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references((): AnyPgColumn => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index("project_members_user_idx").on(t.userId)],
);

/** The owning project's id: every row of a project's table carries it, and it never changes. */
const projectId = () =>
  uuid("project_id")
    .notNull()
    .references((): AnyPgColumn => projects.id, { onDelete: "cascade" });

export const users = pgTable("users", {
  id: uuid("id").primaryKey().defaultRandom(),
  email: text("email").notNull().unique(),
  /** Null: no password, the person signs in through single sign-on only. */
  passwordHash: text("password_hash"),
  /**
   * Runs the instance: projects, people, single sign-on, instance-wide hooks and settings, and
   * admin in every project. A person with no membership and not this waits, listed in Settings,
   * until an admin gives them a role in a project (single sign-on may create such people).
   */
  instanceAdmin: boolean("instance_admin").notNull().default(false),
  disabled: boolean("disabled").notNull().default(false),
  /**
   * The person's Slack member id (`U…`), set by an admin: how a click on an approval's Slack
   * button is tied to a Hookplane user (lib/features/approvals/slack-interactions.ts).
   */
  slackUserId: text("slack_user_id").unique(),
  /**
   * The person's groups as their single sign-on provider sent them at their last sign-in: what a
   * hook's `group:<name>` scope and `actor.groups` read. Empty for password-only people.
   */
  ssoGroups: text("sso_groups").array().notNull().default(sql`'{}'::text[]`),
  createdAt: createdAt(),
});

/** Browser sessions; the cookie holds a random token, the table only its SHA-256. */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The single sign-on provider that opened it; null for a password sign-in. Deleting the provider ends it. */
    providerId: uuid("provider_id").references((): AnyPgColumn => oidcProviders.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_provider_idx").on(t.providerId)],
);

/**
 * One group of the identity provider and the role its members get in a project (by slug; none:
 * the default project). Highest role wins when several name the same project.
 */
export interface GroupRoleMapping {
  group: string;
  role: Role;
  project?: string;
}

/** An OpenID Connect identity provider an admin configured (lib/features/sso). */
export const oidcProviders = pgTable("oidc_providers", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** Shown on the sign-in button: "Sign in with <name>". */
  name: text("name").notNull().unique(),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  /** Sealed with the secret box (lib/platform/security/secret-box.ts); never leaves the server. */
  clientSecretSealed: text("client_secret_sealed").notNull(),
  scopes: text("scopes").array().notNull(),
  /** The ID token or userinfo claim holding the person's groups (`groups`, `roles`, ...). */
  groupsClaim: text("groups_claim").notNull(),
  roleMappings: jsonb("role_mappings").$type<GroupRoleMapping[]>().notNull(),
  /** The role in the default project of a person no mapping names; null: no access until an admin assigns one. */
  defaultRole: text("default_role").$type<Role>(),
  /** A person with no Hookplane account gets one on first sign-in; otherwise they are refused. */
  createUsers: boolean("create_users").notNull(),
  /**
   * A first sign-in whose email an existing account has links to that account, only if the
   * provider says `email_verified: true`. Off: such a sign-in is refused.
   */
  linkByEmail: boolean("link_by_email").notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * A person's account at an issuer, tied to their Hookplane user: the issuer and its `sub`, never
 * the email alone (emails change hands; `sub` is stable and unique per issuer).
 */
export const userIdentities = pgTable(
  "user_identities",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    /** The email the provider last sent, for people reading Settings. */
    email: text("email"),
    createdAt: createdAt(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("user_identities_issuer_subject_uq").on(t.issuer, t.subject), index("user_identities_user_idx").on(t.userId)],
);

/**
 * A named non-person that acts (a CI pipeline's coding agent, a scheduled job): it owns tokens, and
 * every record of what they did names it (`service:<name>`), never a person nor an anonymous token.
 * One project's; deleting it deletes its tokens.
 */
export const serviceAccounts = pgTable(
  "service_accounts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: projectId(),
    /** Unique in its project: what records and hook conditions (`actor.service`) name. */
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("service_accounts_project_name_uq").on(t.projectId, t.name)],
);

/**
 * Who may change the rules over their own coding agents, and decide their own agents' approvals,
 * in a project: granted explicitly by another admin (lib/platform/auth/own-governance.ts). No row:
 * whatever the person's role, the hooks, agents and approvals that govern their own calls are
 * someone else's to change.
 */
export const selfGovernanceGrants = pgTable(
  "self_governance_grants",
  {
    projectId: projectId(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    grantedBy: text("granted_by").notNull(),
    grantedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] })],
);

/** A token acts in one project, with the lesser of its role and its owner's role there. */
export const apiTokens = pgTable("api_tokens", {
  id: uuid("id").primaryKey().defaultRandom(),
  projectId: projectId(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  /** First characters of the token, so a person can tell tokens apart without the secret. */
  prefix: text("prefix").notNull(),
  role: text("role").$type<Role>().notNull(),
  userId: uuid("user_id").references(() => users.id, { onDelete: "set null" }),
  /**
   * `api`: acts with its role on the whole API. `bridge`: a person's coding agents send hook events
   * for that person with it, and nothing else (lib/platform/auth/bridge-credentials.ts).
   */
  kind: text("kind").$type<TokenKind>().notNull().default("api"),
  /** Owned by a service account (not a person): it acts as that account, with the token's own role. */
  serviceAccountId: uuid("service_account_id").references(() => serviceAccounts.id, { onDelete: "cascade" }),
  createdAt: createdAt(),
  lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
});

/**
 * The calls each `limit` hook let through, by key (hook and subject), counted in buckets of a 60th
 * of its window (at least 1 s): taking one sums at most ~61 rows however high the limit, where a row
 * per call made a limit of a million a minute scan tens of thousands of rows a call. Counted and
 * added under one lock per key, across every web process (db/queries/rate-limits.ts). A bucket
 * counts until it lies wholly before the window, so no window ever holds more than `max`; a call
 * may be refused up to one bucket early. Buckets out of the window go as the key is next counted.
 */
export const rateLimitBuckets = pgTable(
  "rate_limit_buckets",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** The bucket's start. */
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    hits: integer("hits").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key, t.bucket] })],
);

/**
 * Tokens of a `limit` hook handed out in advance to one process (db/queries/rate-limits.ts,
 * hp_lease_rate_limit): counted in `rate_limit_buckets` at once, in the bucket where the lease ends,
 * and spent by the holder without a statement each, until the lease ends. The holder returns what it
 * did not spend (hp_settle_rate_limit_lease); a lease never returned (its process ended) counts as
 * spent once it is `grace` past its end. `tokens` is what the holder may still spend.
 */
export const rateLimitLeases = pgTable(
  "rate_limit_leases",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** The bucket its tokens were counted in (where the lease ends). */
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    tokens: integer("tokens").notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("rate_limit_leases_key_idx").on(t.projectId, t.key)],
);

/**
 * `hookplane login` on a developer's machine (OAuth 2.0 device authorization, RFC 8628): the CLI
 * holds `device_code` (stored hashed) and polls; the person enters `user_code` on /device, signed
 * in (single sign-on applies), and picks the project; the next poll receives a bridge credential
 * of theirs, once (lib/platform/auth/device-flow.ts).
 */
export const deviceAuthorizations = pgTable("device_authorizations", {
  id: uuid("id").primaryKey().defaultRandom(),
  deviceCodeHash: text("device_code_hash").notNull().unique(),
  userCode: text("user_code").notNull().unique(),
  /** The machine, as the CLI names it (shown to the person approving). */
  name: text("name").notNull(),
  status: text("status").$type<"pending" | "approved" | "denied" | "redeemed">().notNull().default("pending"),
  userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
  projectId: uuid("project_id").references(() => projects.id, { onDelete: "cascade" }),
  tokenId: uuid("token_id"),
  createdAt: createdAt(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  decidedAt: timestamp("decided_at", { withTimezone: true }),
  lastPolledAt: timestamp("last_polled_at", { withTimezone: true }),
});

/**
 * Decisions a coding agent's `hookplane` CLI took alone while Hookplane could not be reached
 * (failing closed, or open where told to), sent when it answered again. The entry's id, made by
 * the CLI, makes a replay record it once; `received_at` is when Hookplane learned of it (the
 * `offline_decisions` alert counts those), `decided_at` when the CLI decided.
 */
export const offlineDecisions = pgTable(
  "offline_decisions",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    runId: uuid("run_id"),
    agentId: uuid("agent_id"),
    decision: text("decision").$type<"allowed" | "blocked">().notNull(),
    /** The fail mode the CLI applied ("closed"/"open"), as it reports it; NULL from a CLI that does not say. */
    failMode: text("fail_mode").$type<"closed" | "open">(),
    /** Let a gated call through while its agent's fail mode was "closed" (the `offline_against_policy` alert counts those). */
    againstPolicy: boolean("against_policy").notNull().default(false),
    decidedAt: timestamp("decided_at", { withTimezone: true }).notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("offline_decisions_project_received_idx").on(t.projectId, t.receivedAt)],
);

/**
 * A machine where `hookplane install` wrote an agent's hooks into a coding agent's settings: who
 * (the credential's person, as runs.actor_key), where (host and OS user as reported), which
 * settings level and file, and the sha256 of the export it installed, so the agent's page can say
 * which machines drifted from the current export. One row per person, machine, coding agent and
 * settings file; a re-install updates it.
 */
export const agentInstalls = pgTable(
  "agent_installs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: projectId(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    actorKey: text("actor_key").notNull(),
    /** The person's email (or the token's label) when installed: shown without a join. */
    actorLabel: text("actor_label").notNull(),
    codingAgent: text("coding_agent").notNull(),
    host: text("host").notNull().default(""),
    osUser: text("os_user").notNull().default(""),
    cliVersion: text("cli_version").notNull().default(""),
    level: text("level").$type<"user" | "project" | "managed">().notNull(),
    settingsPath: text("settings_path").notNull(),
    settingsSha256: text("settings_sha256").notNull(),
    installedAt: timestamp("installed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("agent_installs_machine_uq").on(t.agentId, t.actorKey, t.codingAgent, t.host, t.osUser, t.settingsPath),
    index("agent_installs_project_agent_idx").on(t.projectId, t.agentId, t.installedAt),
  ],
);

/** One registered hook of a coding agent's session, as its telemetry lists it (Claude Code's `hook_registered`). */
export interface RegisteredHook {
  event: string;
  type: string;
  source: string;
  matcher?: string;
}

/**
 * A coding agent's session as its own telemetry reports it (Claude Code's OpenTelemetry logs sent
 * to `/api/v1/ingest/otel/v1/logs`), apart from its hooks: the hooks it registered at start, and
 * how many tool calls and hook runs it reported. A session whose tool calls never reached
 * Hookplane as hook events, or that registered no gating hook, ran without Hookplane's guards
 * (lib/features/bridge/session-sightings.ts). One row per agent, person and session; each batch
 * of telemetry adds to it.
 */
export const codingAgentSightings = pgTable(
  "coding_agent_sightings",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: projectId(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    actorKey: text("actor_key").notNull(),
    actorLabel: text("actor_label").notNull(),
    codingAgent: text("coding_agent").notNull(),
    externalSessionId: text("external_session_id").notNull(),
    cliVersion: text("cli_version").notNull().default(""),
    /** Null until the session's telemetry listed its hooks (an empty list: it registered none). */
    hookInventory: jsonb("hook_inventory").$type<RegisteredHook[]>(),
    /** Claude Code's safe mode, in which it runs no hooks. */
    safeMode: boolean("safe_mode").notNull().default(false),
    toolCalls: integer("tool_calls").notNull().default(0),
    hookRuns: integer("hook_runs").notNull().default(0),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("coding_agent_sightings_session_uq").on(t.agentId, t.actorKey, t.codingAgent, t.externalSessionId),
    index("coding_agent_sightings_project_seen_idx").on(t.projectId, t.lastSeenAt),
  ],
);

export const TOKEN_KINDS = ["api", "bridge"] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/**
 * Sign-in attempts counted per key (a client address, or an account from one address), to slow
 * down guessing across every web process. `lockedUntil` is set in the same statement that counts,
 * so parallel attempts cannot slip past a lock (lib/platform/auth/sign-in-throttle.ts).
 */
export const signInFailures = pgTable("sign_in_failures", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  lastFailureAt: timestamp("last_failure_at", { withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
  /** The attempt counted last: how an attempt learns it was counted, whatever the clock's grain. */
  lastAttemptId: uuid("last_attempt_id"),
});

export const agents = pgTable(
  "agents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: projectId(),
    /** Unique in its project. */
    name: text("name").notNull(),
    description: text("description"),
    model: text("model").notNull(),
    instructions: text("instructions"),
    tools: jsonb("tools").$type<string[]>().notNull().default([]),
    maxTurns: integer("max_turns").notNull(),
    timeoutMs: integer("timeout_ms").notNull(),
    budgetUsd: doublePrecision("budget_usd"),
    dailyBudgetUsd: doublePrecision("daily_budget_usd"),
    /** What each person's coding agents may spend a UTC day in this agent's bridged sessions. */
    dailyBudgetPerPersonUsd: doublePrecision("daily_budget_per_person_usd"),
    /**
     * What its coding agents' `hookplane` CLI does with a gated call when Hookplane cannot answer:
     * "closed" blocks it, "open" lets it through; NULL leaves it to the CLI (`--fail-open`, else
     * closed). Sent with every ingest answer, cached by the CLI for the outage (docs/coding-agents.md).
     */
    failMode: text("fail_mode").$type<"closed" | "open">(),
    script: jsonb("script").$type<unknown[]>(),
    metadataFile: text("metadata_file"),
    flow: jsonb("flow").$type<string[]>(),
    /** Ids of the operator's code hooks this agent references (Standard Agents' agent-level `hooks`). */
    codeHooks: jsonb("code_hooks").$type<string[]>(),
    /** Tools opted into re-running after a crash cut a call short (otherwise at most once). */
    retryTools: jsonb("retry_tools").$type<string[]>(),
    /** Days its runs and their events are kept (lib/features/retention): NULL = the instance default, 0 = forever. */
    retentionDays: integer("retention_days"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("agents_project_name_uq").on(t.projectId, t.name),
    check("agents_retention_days_ck", sql`${t.retentionDays} is null or ${t.retentionDays} >= 0`),
    check("agents_fail_mode_ck", sql`${t.failMode} is null or ${t.failMode} in ('closed', 'open')`),
  ],
);

/**
 * The current version of each hook; `spec` is the hook-model.md body, validated by lib/core/hooks.
 * `projectId` null: an instance-wide hook, which instance admins keep and every project's runs meet
 * before the project's own (its `global` scope then means every project).
 */
export const hooks = pgTable(
  "hooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    projectId: uuid("project_id").references((): AnyPgColumn => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    scope: text("scope").notNull(),
    event: text("event").notNull(),
    position: integer("position").notNull().default(0),
    enabled: boolean("enabled").notNull().default(true),
    version: integer("version").notNull().default(1),
    spec: jsonb("spec").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique("hooks_project_scope_key_uq").on(t.projectId, t.scope, t.key).nullsNotDistinct(), index("hooks_event_idx").on(t.event)],
);

/**
 * A counter that moves with every change to `hooks` (a statement-level trigger, migration 0034:
 * inserts, updates, deletes, truncates, by the product or by hand), in the changing transaction,
 * so a reader sees it move exactly when the change is visible. A bridged hook call reads it with
 * its session's run and keeps the chains it parsed while it holds (lib/features/runs/run-hooks.ts):
 * a hash over every hook in scope cost each call more the more hooks a project had (issue 26).
 */
export const hookGeneration = pgTable("hook_generation", {
  id: integer("id").primaryKey().default(1),
  n: bigint("n", { mode: "number" }).notNull().default(0),
});

export const hookVersions = pgTable(
  "hook_versions",
  {
    hookId: uuid("hook_id")
      .notNull()
      .references(() => hooks.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    spec: jsonb("spec").$type<Record<string, unknown>>().notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.hookId, t.version] })],
);

export const schedules = pgTable("schedules", {
  id: uuid("id").primaryKey().defaultRandom(),
  projectId: projectId(),
  name: text("name"),
  agentId: uuid("agent_id")
    .notNull()
    .references(() => agents.id, { onDelete: "cascade" }),
  cron: text("cron"),
  intervalMs: integer("interval_ms"),
  prompt: text("prompt").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  lastRunAt: timestamp("last_run_at", { withTimezone: true }),
  lastResponse: text("last_response"),
  nextRunAt: timestamp("next_run_at", { withTimezone: true }),
  createdAt: createdAt(),
});

export const RUN_STATUSES = ["queued", "running", "waiting_approval", "finished"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const runs = pgTable(
  "runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Its agent's project, copied so lists and the stream filter without a join. */
    projectId: projectId(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    scheduleId: uuid("schedule_id").references(() => schedules.id, { onDelete: "set null" }),
    parentRunId: uuid("parent_run_id"),
    source: text("source").notNull().default("api"),
    externalSessionId: text("external_session_id"),
    status: text("status").$type<RunStatus>().notNull().default("queued"),
    outcome: text("outcome"),
    reason: text("reason"),
    prompt: text("prompt").notNull(),
    /** Template variables of the entry point (a schedule's last_run, last_response, ...). */
    vars: jsonb("vars").$type<Record<string, string>>(),
    /** The run's own code hook ids (prompt-level): overrides the agent's; an empty list means none. */
    codeHooks: jsonb("code_hooks").$type<string[]>(),
    response: text("response"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    cachedTokens: integer("cached_tokens").notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    /** Last seq handed out for this run's events: the gapless counter. */
    lastSeq: integer("last_seq").notNull().default(0),
    checkpoint: jsonb("checkpoint"),
    toolsUsed: jsonb("tools_used").$type<string[]>().notNull().default([]),
    blocked: boolean("blocked").notNull().default(false),
    cancelRequested: boolean("cancel_requested").notNull().default(false),
    /** Executions that ended in an error of the recording itself; past a few, the run is failed. */
    failures: integer("failures").notNull().default(0),
    /** The worker executing the run and until when its claim holds (renewed by heartbeat). */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    createdBy: text("created_by"),
    /**
     * Who acted, for a bridged session: `user:<id>` (a person, whatever credential they used) or
     * `token:<id>` (a token no person owns). A session is one run per (agent, session id, actor):
     * another person's same session id is another run.
     */
    actorKey: text("actor_key"),
    /** The person acting (null for a token no person owns); kept if they leave. */
    actorUserId: uuid("actor_user_id"),
    /** Their email, or the token's label: what the record shows even after the person is gone. */
    actorLabel: text("actor_label"),
    /** The machine as its CLI reports it (host name, OS user): untrusted, shown as such. */
    actorHost: text("actor_host"),
    actorOsUser: text("actor_os_user"),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    index("runs_agent_created_idx").on(t.agentId, t.createdAt),
    index("runs_created_idx").on(t.createdAt),
    index("runs_project_created_idx").on(t.projectId, t.createdAt),
    index("runs_external_session_idx").on(t.externalSessionId),
    // A session of one actor has one open run at a time: its first events, arriving at once (on
    // any web process), start it with one INSERT ... ON CONFLICT DO NOTHING, not under a lock
    // (db/queries/external-runs.ts). Null actor keys (runs from before people) never conflict.
    uniqueIndex("runs_open_session_uq")
      .on(t.agentId, t.actorKey, t.externalSessionId)
      .where(sql`external_session_id is not null and status <> 'finished'`),
    index("runs_project_actor_created_idx").on(t.projectId, t.actorUserId, t.createdAt),
    // The runs_failed alert reads failed runs by when they ended: only those rows are indexed.
    index("runs_failed_finished_idx").on(t.finishedAt).where(sql`outcome in ('failed', 'timeout')`),
  ],
);

/**
 * Partitioned by `ts` (range, a day or a month a partition: drizzle/0015_retention.sql, and
 * db/queries/partitions.ts creates them ahead), so retention drops old partitions instead of deleting
 * row by row. Hence the partition key in the primary key and the unique index, and no foreign key to
 * runs: creating or dropping a partition would lock `runs`, which every append updates. Deleting a
 * run deletes its events all the same (a trigger on runs, in the same migration).
 */
export const runEvents = pgTable(
  "run_events",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    runId: uuid("run_id").notNull(),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    ts: timestamp("ts", { withTimezone: true }).notNull().defaultNow(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [primaryKey({ name: "run_events_pkey", columns: [t.id, t.ts] }), uniqueIndex("run_events_run_seq_uq").on(t.runId, t.seq, t.ts)],
);

/**
 * A run's transcript, one row per message, appended as the loop goes: the checkpoint on the run
 * row stays small (where the loop stands), so saving it costs the same at the 10th step as at the
 * 10,000th.
 */
export const runMessages = pgTable(
  "run_messages",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    stage: integer("stage").notNull(),
    idx: integer("idx").notNull(),
    message: jsonb("message").$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.stage, t.idx] })],
);

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "timed_out", "abandoned"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Who may decide an approval (the approve hook's `approvers`); none: any operator. */
export interface ApproverGroups {
  users?: string[];
  roles?: Role[];
}

export const approvals = pgTable(
  "approvals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Its run's project. */
    projectId: projectId(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    hookKey: text("hook_key").notNull(),
    toolName: text("tool_name"),
    toolInput: jsonb("tool_input"),
    toolCallId: text("tool_call_id"),
    message: text("message"),
    status: text("status").$type<ApprovalStatus>().notNull().default("pending"),
    onTimeout: text("on_timeout").notNull().default("deny"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    decidedBy: text("decided_by"),
    decidedVia: text("decided_via"),
    reason: text("reason"),
    /** Copied from the approve hook when asked, so an edit of the hook does not move a pending question. */
    approvers: jsonb("approvers").$type<ApproverGroups>(),
    /**
     * The input the approver approved when they edited the call's (`toolInput` stays what was
     * asked); the call runs with it. Null: approved as asked. Who edited it is `decidedBy`.
     */
    approvedInput: jsonb("approved_input").$type<Record<string, unknown>>(),
  },
  (t) => [
    index("approvals_status_idx").on(t.status),
    index("approvals_project_status_idx").on(t.projectId, t.status),
    uniqueIndex("approvals_run_call_hook_uq").on(t.runId, t.toolCallId, t.hookKey),
  ],
);

/**
 * The chat messages that told people about an approval (a Slack message's channel and ts, a
 * Discord message's channel and id), so they can be changed to say how it ended. `settledAt` is
 * claimed by the one process that updates the message, whichever process settled the approval.
 */
export const approvalNotices = pgTable(
  "approval_notices",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    approvalId: uuid("approval_id")
      .notNull()
      .references(() => approvals.id, { onDelete: "cascade" }),
    service: text("service").$type<"slack" | "discord">().notNull(),
    channel: text("channel").notNull(),
    messageId: text("message_id").notNull(),
    /** The name of the secret holding the bot token that posted it (never the value). */
    tokenSecret: text("token_secret").notNull(),
    hookKey: text("hook_key").notNull(),
    createdAt: createdAt(),
    settledAt: timestamp("settled_at", { withTimezone: true }),
  },
  (t) => [index("approval_notices_approval_idx").on(t.approvalId)],
);

/**
 * Slack request signatures already accepted: a replayed callback (the same signed request sent
 * again inside Slack's five-minute window) is refused in every process. Rows older than the
 * window are deleted as new ones arrive.
 */
export const slackRequestNonces = pgTable(
  "slack_request_nonces",
  {
    signature: text("signature").primaryKey(),
    seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("slack_request_nonces_seen_idx").on(t.seenAt)],
);

/**
 * The hook ledger: one row per hook considered for an event. Append-only and hash-chained; no
 * foreign key to runs, because a ledger row outlives its run (deleting an agent deletes its runs,
 * never the record of what its hooks decided; deleting a run on purpose removes its rows and leaves
 * chain_gaps). Partitioned by `created_at` like run_events, so retention drops whole old partitions.
 */
export const hookInvocations = pgTable(
  "hook_invocations",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    /** The run's project (null only for rows no run wrote). Not a foreign key, as run_id. */
    projectId: uuid("project_id"),
    runId: uuid("run_id"),
    eventSeq: integer("event_seq"),
    event: text("event").notNull(),
    hookKey: text("hook_key").notNull(),
    hookVersion: integer("hook_version"),
    scope: text("scope"),
    matched: boolean("matched").notNull(),
    skipReason: text("skip_reason"),
    verdict: text("verdict"),
    reason: text("reason"),
    mode: text("mode"),
    action: text("action"),
    failed: boolean("failed").notNull().default(false),
    timedOut: boolean("timed_out").notNull().default(false),
    /** The verdict did not take effect (shadow mode, or a block on an informational event). */
    ignored: boolean("ignored").notNull().default(false),
    approval: jsonb("approval"),
    /** What the hook changed in the call, before and after (lib/core/hooks/ledger.ts LedgerModification). */
    modification: jsonb("modification"),
    exitCode: integer("exit_code"),
    stdout: text("stdout"),
    stderr: text("stderr"),
    output: text("output"),
    durationMs: doublePrecision("duration_ms"),
    /**
     * Who acted, on a bridged session's rows (null on an own agent's run): `user:<id>` or
     * `token:<id>`, as on the run, so the record names the person after the run is gone.
     */
    actorKey: text("actor_key"),
    /** Their label and role at the time, the agent tier, the subagent and the session that delegated to it. */
    actor: jsonb("actor").$type<LedgerActor>(),
    createdAt: createdAt(),
    ...chainColumns(),
  },
  (t) => [
    primaryKey({ name: "hook_invocations_pkey", columns: [t.id, t.createdAt] }),
    index("hook_invocations_actor_idx").on(t.projectId, t.actorKey, t.createdAt),
    index("hook_invocations_run_idx").on(t.runId),
    index("hook_invocations_project_idx").on(t.projectId, t.createdAt),
    index("hook_invocations_hook_idx").on(t.hookKey, t.createdAt),
    // What the hook_failures and runs_blocked alerts count over a window: only those rows are indexed.
    index("hook_invocations_failures_idx").on(t.createdAt).where(sql`failed or timed_out`),
    index("hook_invocations_blocks_idx").on(t.createdAt).where(sql`verdict = 'block' and not ignored`),
    ...chainIndexes("hook_invocations", t, t.createdAt),
  ],
);

/** The person behind a ledger row as the hooks saw them (their key is its own column, their email is the label). */
export type LedgerActor = Omit<EventActor, "key" | "email">;

/** A project's price overrides over the built-in catalogue. */
export const modelPrices = pgTable("model_prices", {
  id: uuid("id").primaryKey().defaultRandom(),
  projectId: projectId(),
  modelPattern: text("model_pattern").notNull(),
  inputUsdPerM: doublePrecision("input_usd_per_m").notNull(),
  outputUsdPerM: doublePrecision("output_usd_per_m").notNull(),
  cachedUsdPerM: doublePrecision("cached_usd_per_m").notNull().default(0),
  effectiveFrom: timestamp("effective_from", { withTimezone: true }).notNull().default(sql`'2020-01-01T00:00:00Z'`),
  createdAt: createdAt(),
});

/** Secret values are AES-256-GCM encrypted with a key kept outside the database. */
export const secrets = pgTable(
  "secrets",
  {
  id: uuid("id").primaryKey().defaultRandom(),
  projectId: projectId(),
  /** Unique in its project. */
  name: text("name").notNull(),
  ciphertext: text("ciphertext").notNull(),
  /** Hosts a request carrying the value may go to (`api.example.com`, `*.slack.com`); empty: none. */
  hosts: text("hosts").array().notNull().default(sql`'{}'::text[]`),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("secrets_project_name_uq").on(t.projectId, t.name)],
);

/** Who changed what, with before and after values. Append-only and hash-chained like the ledger. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The project the change was made in; null: the instance's own (people, projects, providers, settings). Not hashed. */
    projectId: uuid("project_id"),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id"),
    before: jsonb("before"),
    after: jsonb("after"),
    createdAt: createdAt(),
    ...chainColumns(),
  },
  (t) => [
    index("audit_log_entity_idx").on(t.entityType, t.entityId),
    index("audit_log_created_idx").on(t.createdAt),
    index("audit_log_project_idx").on(t.projectId, t.createdAt),
    ...chainIndexes("audit_log", t),
  ],
);

/**
 * Written by retention just before it deletes the oldest whole days of a chained table: the last
 * deleted position and its hash, which the oldest remaining row links to. Append-only too.
 */
export const chainAnchors = pgTable(
  "chain_anchors",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tableName: text("table_name").notNull(),
    chainSeq: bigint("chain_seq", { mode: "number" }).notNull(),
    hash: text("hash").notNull(),
    /** Rows created before this UTC midnight were eligible. */
    before: timestamp("before", { withTimezone: true }).notNull(),
    deletedRows: integer("deleted_rows").notNull(),
    createdAt: createdAt(),
    ...statementSignature(),
  },
  (t) => [uniqueIndex("chain_anchors_table_seq_uq").on(t.tableName, t.chainSeq)],
);

/**
 * Written when a run is deleted on purpose (DELETE /api/v1/runs/{id}): its sealed ledger rows leave
 * the middle of the chain, and each gap keeps the positions they held and the hash of the last one,
 * which the row after the gap links to. One row per run of consecutive positions of that run's rows.
 * Append-only (drizzle/0015_retention.sql).
 */
export const chainGaps = pgTable(
  "chain_gaps",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tableName: text("table_name").notNull(),
    runId: uuid("run_id").notNull(),
    firstSeq: bigint("first_seq", { mode: "number" }).notNull(),
    lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
    /** The hash of the row at last_seq. */
    hash: text("hash").notNull(),
    /**
     * The hash at first_seq - 1, which the first deleted row linked to: signed with the gap, it
     * binds the rows before the gap to a signature as a signed head would. NULL on gaps written
     * before signing existed.
     */
    prevHash: text("prev_hash"),
    createdAt: createdAt(),
    ...statementSignature(),
  },
  (t) => [uniqueIndex("chain_gaps_table_seq_uq").on(t.tableName, t.firstSeq)],
);

/**
 * A signed head, written with every seal in the sealer's transaction: the chain of `table_name`
 * reached `chain_seq`, whose hash is `hash`, at `signed_at`, signed by the instance's ledger key
 * (lib/core/audit/chain-signature.ts has the message). The private key is never in the
 * database, so whoever can write here can remove a head but not make one that verifies. Append-only:
 * retention deletes only the heads below its newest anchor, whose rows are gone
 * (drizzle/0026_chain_seals.sql).
 */
export const chainSeals = pgTable(
  "chain_seals",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tableName: text("table_name").notNull(),
    chainSeq: bigint("chain_seq", { mode: "number" }).notNull(),
    hash: text("hash").notNull(),
    signedAt: timestamp("signed_at", { withTimezone: true }).notNull(),
    keyId: text("key_id").notNull(),
    /** Ed25519, base64. */
    signature: text("signature").notNull(),
  },
  (t) => [uniqueIndex("chain_seals_table_seq_uq").on(t.tableName, t.chainSeq)],
);

/**
 * The hash chains themselves: for each sealed row of a chained table, its position (1, 2, 3, ...
 * with no gap) and its hash, sha256(previous position's hash || canonical JSON of the row's
 * content). Written by the sealer (db/queries/hash-chain.ts) in a narrow table of its own, so a
 * row is never rewritten to be sealed (an UPDATE of an indexed column rewrote it whole, with an
 * entry in each of its indexes: most of what a ledger row cost). A link lives as long as its row:
 * retention and a deleted run remove both. Append-only in the database (drizzle/0036_chain_links.sql).
 */
export const chainLinks = pgTable(
  "chain_links",
  {
    tableName: text("table_name").notNull(),
    chainSeq: bigint("chain_seq", { mode: "number" }).notNull(),
    rowId: bigint("row_id", { mode: "number" }).notNull(),
    /** The row's creation time: the ledger's partition key, so a row is found in its partition only. */
    rowCreatedAt: timestamp("row_created_at", { withTimezone: true }).notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ name: "chain_links_pkey", columns: [t.tableName, t.chainSeq] }), uniqueIndex("chain_links_row_uq").on(t.tableName, t.rowId)],
);

/**
 * How far each chain's sealer has come: every row with an id up to `sealedThrough` is linked (ids
 * in between that no row holds were never committed). The sealer takes rows in id order only below
 * a horizon no transaction can still add a row under: `horizonId`, the highest id committed when
 * it looked, once every transaction in progress then (those below `horizonXmax`) has ended.
 */
export const chainState = pgTable("chain_state", {
  tableName: text("table_name").primaryKey(),
  sealedThrough: bigint("sealed_through", { mode: "number" }).notNull(),
  horizonId: bigint("horizon_id", { mode: "number" }),
  /** pg_snapshot_xmax of that look, as text (an xid8). */
  horizonXmax: text("horizon_xmax"),
});

/** Named notes for the `memory` tool, one set per project. */
export const memoryNotes = pgTable(
  "memory_notes",
  {
    projectId: projectId(),
    name: text("name").notNull(),
    content: text("content").notNull().default(""),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

/** Instance switches that change without a restart (the hook kill switch, retention, password sign-in). */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: updatedAt(),
});

/** What an alert rule watches (lib/features/alerts/alert-rules.ts lists and describes them). */
export type AlertKind = "cost" | "runs_failed" | "runs_blocked" | "approvals_waiting" | "hook_failures" | "offline_decisions" | "offline_against_policy" | "unguarded_sessions" | "settings_drift";
export type AlertState = "ok" | "firing";

/**
 * Where an alert's notices go (lib/features/alerts/alert-rules.ts validates them): a Slack or
 * Discord channel with the name of the secret holding the bot token (never the value), a webhook
 * (headers may carry `${secret:NAME}`), or email addresses (sent through the configured SMTP server).
 */
export type AlertTarget =
  | { type: "slack"; channel: string; tokenSecret: string; timeoutMs?: number }
  | { type: "discord"; channel: string; tokenSecret: string; timeoutMs?: number }
  | { type: "webhook"; url: string; method: "POST" | "PUT"; headers: Record<string, string>; timeoutMs?: number }
  | { type: "email"; to: string[] };

/**
 * An alert rule on a metric Hookplane already keeps (lib/features/alerts/). Its state columns are
 * changed only by conditional UPDATEs (db/queries/alerts.ts), so a rule fires once per cooldown
 * however many evaluators look at it at once.
 */
export const alertRules = pgTable(
  "alert_rules",
  {
  id: uuid("id").primaryKey().defaultRandom(),
  projectId: projectId(),
  /** Unique in its project. */
  name: text("name").notNull(),
  kind: text("kind").$type<AlertKind>().notNull(),
  /** Only this agent's runs, approvals or hooks; none: all of them. An agent's rules go with it. */
  agentId: uuid("agent_id").references(() => agents.id, { onDelete: "cascade" }),
  /** The window the metric is summed or counted over (every kind but approvals_waiting). */
  windowMinutes: integer("window_minutes"),
  /** approvals_waiting: how long an approval must have been waiting to count. */
  waitMinutes: integer("wait_minutes"),
  /** Fires when the value is above this (USD for cost, a count otherwise). */
  threshold: doublePrecision("threshold").notNull(),
  /** At most one firing notice per cooldown: a reminder while still firing, no re-firing sooner. */
  cooldownMinutes: integer("cooldown_minutes").notNull(),
  targets: jsonb("targets").$type<AlertTarget[]>().notNull().default([]),
  enabled: boolean("enabled").notNull().default(true),
  state: text("state").$type<AlertState>().notNull().default("ok"),
  stateChangedAt: timestamp("state_changed_at", { withTimezone: true }),
  /** The last transition to firing. */
  lastFiredAt: timestamp("last_fired_at", { withTimezone: true }),
  /** The last firing notice: the transition or a reminder. */
  lastNotifiedAt: timestamp("last_notified_at", { withTimezone: true }),
  lastValue: doublePrecision("last_value"),
  lastEvaluatedAt: timestamp("last_evaluated_at", { withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("alert_rules_project_name_uq").on(t.projectId, t.name)],
);

export interface AlertDelivery {
  /** `slack:#ops`, `discord:4242`, `webhook:hooks.example.com`, `email:ops@example.com`. */
  target: string;
  ok: boolean;
  error?: string;
}

/** Each firing, reminder and resolution of a rule, with what its notices achieved. */
export const alertEvents = pgTable(
  "alert_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    ruleId: uuid("rule_id")
      .notNull()
      .references(() => alertRules.id, { onDelete: "cascade" }),
    state: text("state").$type<"firing" | "resolved">().notNull(),
    /** A firing notice sent again after the cooldown while the rule still fires. */
    reminder: boolean("reminder").notNull().default(false),
    value: doublePrecision("value").notNull(),
    threshold: doublePrecision("threshold").notNull(),
    /** The one line the notices said. */
    message: text("message").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    /** Filled once the notices went out (null while they are being sent). */
    notified: jsonb("notified").$type<AlertDelivery[]>(),
  },
  (t) => [index("alert_events_rule_idx").on(t.ruleId, t.at)],
);
