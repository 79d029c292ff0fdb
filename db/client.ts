/**
 * The one place that chooses the database: PGlite in HOOKPLANE_DATA_DIR when DATABASE_URL is
 * unset, node-postgres (db/postgres-pool.ts) when it is. One client per process, kept on globalThis so Next's bundled
 * route handlers and the custom server share it (PGlite allows a single process only).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { sql, type SQL } from "drizzle-orm";
import type { PGlite, PGliteOptions } from "@electric-sql/pglite";
import { ON_OWN_THREAD } from "./pglite-thread-protocol";
import type { PgliteThread } from "./pglite-thread";
import { getConfig } from "@/lib/platform/config/config";
import type { Db, DbHandle, DbKind } from "./db-handle";
import * as schema from "./schema";
import { executeText } from "./sql-literal";
import { StatementGroups, type Waiting } from "./statement-groups";
import { enableGroupCommit, groupCommitOf } from "./postgres-group-commit";
import { assertBatchable, groupUnits, settleUnit, type GroupedStatement } from "./statement-batches";

export type { Db, DbHandle, DbKind } from "./db-handle";

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite folder; "memory://" for an in-memory database (tests). */
  dataDir?: string;
  /** PostgreSQL: called for every statement this handle sends (benchmarks count them). */
  onStatement?: (text: string) => void;
  /**
   * In-memory PGlite: start from this data directory (a `dumpDataDir()` tarball) instead of an
   * empty cluster. Tests start from a migrated one: initdb and the migrations cost ~2.5 s of CPU
   * each time (test/database.ts).
   */
  pgliteDataDir?: Blob;
  /**
   * PostgreSQL: `databaseUrl` goes through a pooler in transaction mode, and `directUrl` is
   * PostgreSQL itself (HOOKPLANE_DB_POOLER, DATABASE_DIRECT_URL when not given).
   */
  pooler?: { transaction: boolean; directUrl?: string };
}

/** PGlite in this thread, or on its own (what both offer that Hookplane calls). */
type PgliteLike = Pick<PGlite, "query" | "exec" | "listen" | "close" | "closed"> | PgliteThread;

async function openPglite(dataDir: string, initial?: Blob): Promise<DbHandle> {
  const { useLiftoffOnly, createDatabaseApart } = await import("./pglite-memory");
  // Before PGlite's WebAssembly is compiled (db/pglite-memory.ts says why).
  useLiftoffOnly();
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { pgliteOptions, startPgliteMaintenance } = await import("./pglite-durability");
  const config = getConfig();
  const inMemory = dataDir.startsWith("memory://");
  // On disk: fsync on unless turned off, WAL bounded (db/pglite-durability.ts); a new database is
  // created by a child process, so this one never holds initdb's memory.
  let options: PGliteOptions = inMemory && initial ? { loadDataDir: initial } : {};
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    options = await pgliteOptions(dataDir, { fsync: config.HOOKPLANE_PGLITE_FSYNC });
    createDatabaseApart(dataDir, options.startParams ?? []);
  }
  // On a thread of its own (HOOKPLANE_PGLITE_THREAD, on unless turned off: faster under load,
  // ~20 MB more idle: db/pglite-thread.ts), on disk only; in memory (tests), on this one.
  const client: PgliteLike =
    !inMemory && config.HOOKPLANE_PGLITE_THREAD
      ? await (await import("./pglite-thread")).PgliteThread.open({ dataDir, fsync: config.HOOKPLANE_PGLITE_FSYNC })
      : await PGlite.create(options);
  markDriver(client, "pglite");
  const maintenance = startPgliteMaintenance(client as PGlite, {
    intervalMs: config.HOOKPLANE_PGLITE_MAINTENANCE_MS,
    onError: (error) => void import("@/lib/platform/logger").then(({ logger }) => logger.warn({ err: error }, "embedded database maintenance failed")),
  });
  const db = drizzle({ client: client as PGlite, schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    async execute(text, params) {
      if (params && params.length > 0) {
        const result = await client.query<Record<string, unknown>>(text, params as unknown[]);
        return { rows: result.rows };
      }
      // pg-boss sends multi-statement scripts without parameters; only exec() accepts those.
      const results = await client.exec(text);
      const withRows = results.filter((r) => r.rows.length > 0);
      return { rows: (withRows.at(-1)?.rows ?? []) as Record<string, unknown>[] };
    },
    async listen(channel, onPayload) {
      const unsubscribe = await client.listen(channel, onPayload);
      return unsubscribe;
    },
    async notify(channel, payload) {
      await client.query("select pg_notify($1, $2)", [channel, payload]);
    },
    available: () => !client.closed,
    onLost: (listener) => (client as Partial<Pick<PgliteThread, "onLost">>).onLost?.(listener),
    poolStats: () => ({ total: 1, max: 1 }),
    maintain: () => maintenance.runOnce(),
    async close() {
      await maintenance.stop();
      if (!client.closed) await client.close();
    },
  };
}

async function openPostgres(url: string, onStatement: ((text: string) => void) | undefined, pooler: NonNullable<OpenOptions["pooler"]>): Promise<DbHandle> {
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { openPostgresPool, poolOptions } = await import("./postgres-pool");
  const { prepareSetting } = await import("./postgres-prepared");
  const { logger } = await import("@/lib/platform/logger");
  // A pooler in transaction mode keeps no session: no statement is named on one (prepare=false).
  const { url: connectionUrl, prepare } = prepareSetting(url, getConfig().HOOKPLANE_DB_PREPARE && !pooler.transaction);
  const options = poolOptions();
  const directUrl = pooler.directUrl ? prepareSetting(pooler.directUrl, false).url : undefined;
  const postgres = openPostgresPool(connectionUrl, {
    ...options,
    prepare,
    onStatement,
    transactionPooler: pooler.transaction,
    listenUrl: directUrl,
    onChange: (up, error) =>
      up ? logger.warn("the database answers again") : logger.error({ err: error }, "the database is unavailable; requests answer 503 until it returns"),
    onError: (error) => logger.warn({ err: error }, "a database connection dropped"),
  });
  const pool = postgres.pool;
  markDriver(pool, "postgres");
  (pool as { [POOL]?: boolean })[POOL] = true;
  // Group commit PREPAREs its statements once per connection; a pooler in transaction mode keeps
  // none, so there each group's message PREPAREs its own (postgres-group-commit.ts).
  if (prepare) enableGroupCommit(pool);
  else if (pooler.transaction) enableGroupCommit(pool, { perMessage: true });
  pool.on("connect", (client) => markDriver(client, "postgres"));
  const db = drizzle(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    url,
    ...(directUrl && { directUrl }),
    async execute(text, params) {
      // pg-boss sends multi-statement scripts without parameters: the simple protocol takes them.
      const result = (await (params && params.length > 0 ? pool.query(text, params) : pool.query(text))) as unknown;
      const results = Array.isArray(result) ? (result as { rows: Record<string, unknown>[] }[]) : [result as { rows: Record<string, unknown>[] }];
      const withRows = results.filter((r) => r.rows?.length > 0);
      return { rows: withRows.at(-1)?.rows ?? [] };
    },
    listen: (channel, onPayload) => postgres.listen(channel, onPayload),
    async notify(channel, payload) {
      await pool.query("select pg_notify($1, $2)", [channel, payload]);
    },
    available: () => postgres.available(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: options.max }),
    close: () => postgres.close(),
  };
}

/**
 * Which driver an object is (a pg pool or connection, a PGlite database), marked on the object
 * itself under a process-wide symbol. Not a module-level set, and never guessed from the object's
 * shape: Next's bundled route handlers carry their own copy of this module, and a copy that did
 * not open the handle once took a pg.Pool (it has `.query` too) for PGlite and sent PREPARE and
 * EXECUTE of one statement to different pooled connections (issue 26).
 */
const DRIVER = Symbol.for("hookplane.dbDriver");
type Marked = { [DRIVER]?: DbKind };

function markDriver(target: object, kind: DbKind): void {
  (target as Marked)[DRIVER] = kind;
}

function driverOf(target: unknown): DbKind | undefined {
  return target && typeof target === "object" ? (target as Marked)[DRIVER] : undefined;
}

/** Marks the PostgreSQL pool itself (not one of its connections): a statement on it commits alone. */
const POOL = Symbol.for("hookplane.dbPool");

/**
 * Whether `db` sends each statement to PostgreSQL's pool in a transaction of its own (not inside a
 * transaction, and not PGlite): then what must follow its commit can be sent after it.
 */
export function commitsAlone(db: Db): boolean {
  const client = (db as unknown as { session?: { client?: object } }).session?.client;
  return Boolean(client && (client as { [POOL]?: boolean })[POOL]);
}

/**
 * Whether `db` is the embedded database itself (not a transaction on it): one process holds it and
 * runs one statement at a time, so a lock taken in this process is a lock on the database.
 */
export function isEmbedded(db: Db): boolean {
  return driverOf((db as { $client?: unknown }).$client) === "pglite";
}

/** What a pg pool or connection and a PGlite database have in common here. */
type Queryable = { query: (query: string | { text: string; values: unknown[] }, params?: unknown[]) => Promise<{ rows: unknown[] }> };
type PgliteClient = Queryable & { exec: (query: string) => Promise<{ rows: unknown[] }[]> };

/**
 * Runs one statement of fixed text ($1, $2, ... parameters) on the hot path, straight on the driver,
 * without building the query through drizzle each time. On PostgreSQL it goes to the client of the
 * drizzle session it is given (the pool, or inside a transaction the transaction's connection),
 * where the pool names it per connection (db/postgres-prepared.ts: a name is only ever used on the
 * connection that prepared it); concurrent commits on the pool's connections share PostgreSQL's
 * WAL flush by themselves. On PGlite (one connection) it is PREPAREd once and EXECUTEd, together
 * with the statements sent while the last ones ran (group commit: StatementQueue). A PGlite
 * transaction's client is not reachable, so there the same text goes through drizzle.
 * Returns the rows as the driver gives them (column names as in SQL).
 */
export interface StatementOptions {
  /**
   * The statement is written to be batched (db/statement-batches.ts: its parameters JSON arrays,
   * its rows carrying `batch_key`), and this call's rows are those of this key: in a commit group
   * it may share one execution with other calls of its text.
   */
  batchKey?: string;
}

export async function executeStatement<T = Record<string, unknown>>(db: Db, text: string, params: unknown[], options: StatementOptions = {}): Promise<T[]> {
  if (options.batchKey !== undefined) assertBatchable(params);
  const client = (db as unknown as { session?: { client?: object } }).session?.client;
  if (driverOf(client) === "postgres") {
    // The pool's statements of one event-loop turn share a transaction and a commit (postgres-group-commit.ts).
    const group = groupCommitOf(client);
    if (group) return (await group.run(text, params, options.batchKey)) as T[];
    return (await (client as Queryable).query({ text, values: params })).rows as T[];
  }
  const pglite = (db as { $client?: unknown }).$client;
  if (driverOf(pglite) === "pglite") return (await executeOnPglite(pglite as PgliteClient, text, params, options.batchKey)) as T[];
  const chunks: SQL[] = text.split(/\$(\d+)/).map((chunk, i) => (i % 2 === 0 ? sql.raw(chunk) : sql`${params[Number(chunk) - 1]}`));
  return queryRows<T>(db, sql.join(chunks));
}

/** The rows of a drizzle `execute` of raw SQL, whichever driver answered (a result object or an array). */
export async function queryRows<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];
}

/**
 * The statements PREPAREd on each PGlite database, by text (a promise, so two first uses share one),
 * and the counter naming them. On globalThis: server.ts and Next's bundled route handlers each have
 * a copy of this module but share the one database, and two counters would hand out one name twice.
 */
const PREPARED_KEY = Symbol.for("hookplane.pglitePrepared");
type PreparedRegistry = { byClient: WeakMap<object, Map<string, Promise<string>>>; count: number };
const preparedRegistry = ((globalThis as typeof globalThis & { [PREPARED_KEY]?: PreparedRegistry })[PREPARED_KEY] ??= { byClient: new WeakMap(), count: 0 });

/**
 * PGlite's API has no named statements: each query is parsed and planned again, which for a
 * statement of several CTEs costs more than running it. So a statement is PREPAREd once per
 * database and run with EXECUTE, its values written as dollar-quoted literals (no escaping to get
 * wrong: the quote's tag is one the value does not contain) that PostgreSQL reads into the
 * prepared parameter types, as it reads text parameters. A value with a NUL cannot be written in a
 * query's text: it goes as a parameter, which PostgreSQL refuses as before.
 */
async function executeOnPglite(client: PgliteClient, text: string, params: unknown[], batchKey: string | undefined): Promise<unknown[]> {
  if (params.some((p) => typeof p === "string" && p.includes("\u0000"))) return (await client.query(text, params)).rows;
  let names = preparedRegistry.byClient.get(client);
  if (!names) preparedRegistry.byClient.set(client, (names = new Map()));
  let name = names.get(text);
  if (!name) {
    const prepared = `hp_statement_${++preparedRegistry.count}`;
    name = client.query(`prepare ${prepared} as ${text}`).then(() => prepared);
    name.catch(() => names.delete(text));
    names.set(text, name);
  }
  return statementQueueOf(client).run({ text, name: await name, params, batchKey });
}


const STATEMENT_QUEUE = Symbol.for("hookplane.pgliteStatementQueue");

/** The statement queue of a PGlite database (on the database object: every copy of this module shares it). */
function statementQueueOf(client: PgliteClient): StatementQueue {
  const holder = client as PgliteClient & { [STATEMENT_QUEUE]?: StatementQueue };
  return (holder[STATEMENT_QUEUE] ??= new StatementQueue(client));
}

type QueuedStatement = GroupedStatement & { name: string } & Waiting<unknown[]>;

/**
 * Group commit on PGlite. PGlite runs a statement on this thread, synchronously, WAL fsync
 * included (the thread waits on the disk), so statements never pile up by themselves: each would
 * commit alone and the process would spend its time waiting on fsyncs. A statement is therefore
 * held for one turn of the event loop, in which the requests already received send theirs, and
 * all go together as one simple query: one implicit transaction, one commit and one fsync, each
 * answered once the group is durable (reads too: one hook call's read and another's write share a
 * trip), statements written to be batched as one EXECUTE for all their callers
 * (statement-batches.ts). If the group fails, it rolled back whole, and each statement is run
 * again alone, so one statement's error is its own.
 */
class StatementQueue extends StatementGroups<QueuedStatement> {
  constructor(private readonly client: PgliteClient) {
    // Marked rather than `instanceof`: Next's bundled routes carry their own copy of the class.
    super((client as { [ON_OWN_THREAD]?: boolean })[ON_OWN_THREAD] === true);
  }

  run(statement: Omit<QueuedStatement, "resolve" | "reject">): Promise<unknown[]> {
    return new Promise((resolve, reject) => this.enqueue({ ...statement, resolve, reject }));
  }

  protected async runAlone(entry: QueuedStatement): Promise<void> {
    await this.client.query(executeText(entry.name, entry.params)).then((r) => entry.resolve(r.rows), entry.reject);
  }

  protected async runGroup(group: QueuedStatement[]): Promise<void> {
    const units = groupUnits(group);
    try {
      const results = await this.client.exec(units.map((unit) => executeText(unit.members[0].name, unit.params)).join(";\n"));
      units.forEach((unit, i) => settleUnit(unit, (results[i]?.rows ?? []) as Record<string, unknown>[]));
    } catch {
      // The whole group rolled back: each alone, so only the one at fault fails.
      for (const g of group) await this.runAlone(g);
    }
  }
}

export async function openDatabase(options: OpenOptions = {}): Promise<DbHandle> {
  const config = getConfig();
  const url = options.databaseUrl ?? config.DATABASE_URL;
  const pooler = options.pooler ?? { transaction: config.HOOKPLANE_DB_POOLER === "transaction", directUrl: config.DATABASE_DIRECT_URL };
  return url ? openPostgres(url, options.onStatement, pooler) : openPglite(options.dataDir ?? path.join(config.HOOKPLANE_DATA_DIR, "pgdata"), options.pgliteDataDir);
}

const GLOBAL_KEY = Symbol.for("hookplane.database");
type GlobalWithDb = typeof globalThis & { [GLOBAL_KEY]?: Promise<DbHandle> };

/** The process-wide database handle, opened and migrated once. */
export function getDatabase(): Promise<DbHandle> {
  const g = globalThis as GlobalWithDb;
  if (!g[GLOBAL_KEY]) {
    g[GLOBAL_KEY] = (async () => {
      const handle = await openDatabase();
      const { migrateDatabase } = await import("./migrate");
      await migrateDatabase(handle);
      return handle;
    })();
    g[GLOBAL_KEY].catch(() => {
      delete g[GLOBAL_KEY];
    });
  }
  return g[GLOBAL_KEY];
}

export async function closeDatabase(): Promise<void> {
  const g = globalThis as GlobalWithDb;
  const pending = g[GLOBAL_KEY];
  delete g[GLOBAL_KEY];
  if (pending) await (await pending).close();
}

/** Makes `handle` the process-wide database (tests and the worker entry point open their own). */
export function installDatabase(handle: DbHandle): void {
  (globalThis as GlobalWithDb)[GLOBAL_KEY] = Promise.resolve(handle);
}
