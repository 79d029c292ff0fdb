/**
 * Where the database is and how connections to it behave (db/client.ts, db/postgres-pool.ts, the embedded PGlite).
 * One part of CONFIG_SCHEMA (config-schema.ts), in the order the docs list them.
 */
import { flag, folder, integer, oneOf, url } from "./config-values";
import type { VariableSpec } from "./variable-spec";

export const DATABASE_VARIABLES = {
  DATABASE_URL: {
    schema: url(["postgres:", "postgresql:"], "a postgres:// URL"),
    defaultText: "unset",
    description: "PostgreSQL URL; unset means embedded PGlite",
    secret: true,
  },
  DATABASE_DIRECT_URL: {
    schema: url(["postgres:", "postgresql:"], "a postgres:// URL"),
    defaultText: "unset",
    description:
      "PostgreSQL itself, not through a pooler in transaction mode: what needs a session of its own (LISTEN for the live views, approvals and revocations; the migrations' lock) connects here; unset: DATABASE_URL. Needed with `HOOKPLANE_DB_POOLER=transaction`",
    secret: true,
  },
  HOOKPLANE_DB_POOLER: {
    schema: oneOf(["none", "transaction"] as const),
    default: "none",
    description:
      "PostgreSQL: `transaction` when DATABASE_URL goes through a pooler in transaction mode (PgBouncer, Supavisor's transaction port): statements go out unnamed (no group commit), no setting is sent when connecting (a pooler refuses `statement_timeout` there: set it on the role, `ALTER ROLE ... SET statement_timeout`), and LISTEN and the migrations use DATABASE_DIRECT_URL",
  },
  HOOKPLANE_DATA_DIR: {
    schema: folder(),
    default: "./.hookplane",
    description: "where PGlite keeps its files (and `secret.key`); closed to other users (0700) at start",
  },
  HOOKPLANE_MIGRATIONS_DIR: {
    schema: folder(),
    default: "./drizzle",
    description: "the migrations applied at start (and by `node dist/migrate.mjs`)",
  },
  HOOKPLANE_DB_POOL: {
    schema: integer({ min: 1 }),
    default: "10",
    description: "PostgreSQL connections per process",
  },
  HOOKPLANE_DB_CONNECT_TIMEOUT_MS: {
    schema: integer({ min: 1 }),
    default: "3000",
    description: "PostgreSQL: how long opening a connection may take",
  },
  HOOKPLANE_DB_STATEMENT_TIMEOUT_MS: {
    schema: integer({ min: 0 }),
    default: "60000",
    description: "PostgreSQL: `statement_timeout` of every connection (the client gives up 5 s later); `0`: none",
  },
  HOOKPLANE_DB_PROBE_MS: {
    schema: integer({ min: 0 }),
    default: "1000",
    description:
      "PostgreSQL: how often a probe asks `select 1` on its own connection. A failed probe marks the database down (API 503 at once) and drops the pooled connections; `0` turns the probe off",
  },
  HOOKPLANE_DB_PROBE_TIMEOUT_MS: {
    schema: integer({ min: 1 }),
    default: "2000",
    description: "PostgreSQL: how long the probe waits for its answer",
  },
  HOOKPLANE_DB_PREPARE: {
    schema: flag(),
    default: "true",
    description:
      "PostgreSQL: statements with parameters go out named (prepared once per connection, at most 500 texts each); `false` (or `?prepare=false` on the URL) for a pooler that cannot keep prepared statements",
  },
  HOOKPLANE_PGLITE_FSYNC: {
    schema: flag(),
    default: "1",
    description: "embedded database: `0` turns fsync off (faster, but a power loss can lose acknowledged writes; see Durability)",
  },
  HOOKPLANE_PGLITE_THREAD: {
    schema: flag(),
    default: "1",
    description:
      "embedded database: it runs on a thread of its own, so its work and the requests' use two cores (bridged hook calls under load +22–32% calls/s, the idle web process ~20 MB more); `0` keeps it on the process's thread",
  },
  HOOKPLANE_PGLITE_MAINTENANCE_MS: {
    schema: integer({ min: 0 }),
    default: "5000",
    description: "embedded database: how often it vacuums tables with many dead rows and checkpoints past 32 MB of WAL; `0` turns it off",
  },
} as const satisfies Record<string, VariableSpec>;
