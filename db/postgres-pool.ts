/**
 * The PostgreSQL pool (node-postgres), made to fail fast and heal by itself (issue 19):
 * - every connection has a connect timeout, a server-side statement_timeout and a client-side
 *   query timeout (pg's own options; the client-side one is what ends a wait on a network that
 *   silently drops packets), and TCP keepalive;
 * - a probe on a connection of its own asks `select 1` every second with a short deadline. When it
 *   fails, the database is marked down (requests answer 503 at once instead of queueing) and every
 *   pooled connection is destroyed, so queries stuck on a dead network fail now rather than after
 *   minutes of TCP retries; the pool opens new ones as they are needed;
 * - LISTEN runs on one dedicated connection, reopened (every channel subscribed again) whenever it
 *   drops and whenever the probe sees the database come back;
 * - behind a pooler in transaction mode (PgBouncer) nothing is set when connecting (the pooler
 *   refuses a startup `statement_timeout`), and LISTEN goes to PostgreSQL itself (`listenUrl`): a
 *   LISTEN through such a pooler subscribes whichever server connection ran it, for whoever uses
 *   that connection next, and this process hears nothing.
 * node-postgres rather than postgres.js: postgres.js 3.4.9 can throw from a timer when a server
 * ends a connection mid-write (porsager/postgres#1154, #1208), which kills the process; pg's
 * errors always reach the query.
 */
import pg from "pg";
import { getConfig, type Config } from "@/lib/platform/config/config";
import { nameStatements } from "./postgres-prepared";

export interface PostgresPoolOptions {
  max: number;
  /** Server-side limit on one statement; 0: none. */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** 0 turns the probe off (the database is then always taken to be up). */
  probeMs: number;
  probeTimeoutMs: number;
  /** Told when the database goes down or comes back. */
  onChange?: (up: boolean, error?: unknown) => void;
  /** Told of errors nobody awaits (an idle connection or the LISTEN connection dropping). */
  onError?: (error: unknown) => void;
  /** Statements with parameters go out named, parsed once per connection (db/postgres-prepared.ts). */
  prepare?: boolean;
  /** Told of every statement the pool's connections send (benchmarks count them). */
  onStatement?: (text: string) => void;
  /** The URL goes through a pooler in transaction mode: no setting is sent when connecting. */
  transactionPooler?: boolean;
  /** Where LISTEN connects (PostgreSQL itself, past the pooler); the pool's URL when unset. */
  listenUrl?: string;
}

export interface PostgresPool {
  pool: pg.Pool;
  /** False from a failed probe until one succeeds. */
  available(): boolean;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The pool's settings from the configuration (docs/operations.md: Environment). */
export function poolOptions(config: Config = getConfig()): Omit<PostgresPoolOptions, "onChange" | "onError" | "prepare" | "onStatement"> {
  return {
    max: config.HOOKPLANE_DB_POOL,
    statementTimeoutMs: config.HOOKPLANE_DB_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.HOOKPLANE_DB_CONNECT_TIMEOUT_MS,
    probeMs: config.HOOKPLANE_DB_PROBE_MS,
    probeTimeoutMs: config.HOOKPLANE_DB_PROBE_TIMEOUT_MS,
  };
}

/** Destroys a client's socket: its query in flight fails now, and the pool drops it. */
function destroy(client: pg.Client) {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

type Release = (error?: Error | boolean) => void;

/**
 * A client whose connection breaks while checked out goes back to the pool (which drops it) by
 * itself, and a second release is ignored. drizzle's transaction() never releases a client whose
 * `begin` failed, so each connection lost at that moment would otherwise stay checked out for good
 * (and pool.end() would wait for it forever).
 */
function selfReleasing(pool: pg.Pool): pg.Pool {
  const connect = pool.connect.bind(pool) as (callback: (error: Error | undefined, client: pg.PoolClient | undefined, done: Release) => void) => void;
  const guard = (client: pg.PoolClient): Release => {
    const release = client.release.bind(client) as Release;
    let released = false;
    const once: Release = (error) => {
      if (released) return;
      released = true;
      client.removeListener("error", once);
      release(error);
    };
    client.once("error", once);
    client.release = once as pg.PoolClient["release"];
    return once;
  };
  pool.connect = ((callback?: (error: Error | undefined, client: pg.PoolClient | undefined, done: Release) => void) => {
    if (callback) return connect((error, client, done) => callback(withPoolerHint(error) as Error | undefined, client, client ? guard(client) : done));
    return new Promise<pg.PoolClient>((resolve, reject) =>
      connect((error, client) => {
        if (error || !client) return reject(withPoolerHint(error));
        guard(client);
        resolve(client);
      }),
    );
  }) as pg.Pool["connect"];
  return pool;
}

/** What a pooler in transaction mode answers to a setting sent when connecting (PgBouncer: `unsupported startup parameter: statement_timeout`). */
const STARTUP_PARAMETER_REFUSED = /unsupported startup parameter/i;

/**
 * The pool's connection errors, with what to do when the URL turns out to be a pooler in
 * transaction mode that Hookplane was not told about: every query fails the same way, and pg's
 * words alone do not say which setting is missing.
 */
export function withPoolerHint(error: unknown, connection: "pooled" | "direct" = "pooled"): unknown {
  if (error instanceof Error && STARTUP_PARAMETER_REFUSED.test(error.message) && !error.message.includes("docs/operations.md")) {
    error.message +=
      connection === "pooled"
        ? " (DATABASE_URL goes through a connection pooler in transaction mode, such as PgBouncer: set HOOKPLANE_DB_POOLER=transaction, and DATABASE_DIRECT_URL to PostgreSQL's own address; docs/operations.md)"
        : " (DATABASE_DIRECT_URL goes through the pooler too: it must reach PostgreSQL itself, for LISTEN, the migrations and the job queue; docs/operations.md)";
  }
  return error;
}

export function openPostgresPool(url: string, options: PostgresPoolOptions): PostgresPool {
  // A pooler in transaction mode refuses settings sent when connecting: the client-side bound stays.
  const startupTimeout = (ms: number) => (options.transactionPooler ? {} : { statement_timeout: ms });
  const limits = {
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.statementTimeoutMs > 0 && {
      ...startupTimeout(options.statementTimeoutMs),
      // The client-side bound: a little past the server's, so the server's answer comes first.
      query_timeout: options.statementTimeoutMs + 5_000,
    }),
  };
  // LISTEN's own connection: to PostgreSQL itself when there is a pooler (a session it keeps).
  const listenLimits = options.listenUrl
    ? {
        ...limits,
        connectionString: options.listenUrl,
        ...(options.statementTimeoutMs > 0 && { statement_timeout: options.statementTimeoutMs }),
      }
    : limits;
  const pool = selfReleasing(new pg.Pool({ ...limits, max: options.max, idleTimeoutMillis: 60_000 }));
  const clients = new Set<pg.Client>();
  pool.on("connect", (client) => {
    clients.add(client);
    if (options.prepare || options.onStatement) nameStatements(client, { prepare: options.prepare ?? false, onStatement: options.onStatement });
    client.on("end", () => clients.delete(client));
    // pg-pool listens for errors only on idle clients: one that drops while checked out (inside a
    // transaction) would throw from the event. Its query is failed anyway; this only logs it.
    client.on("error", (error) => options.onError?.(error));
  });
  pool.on("remove", (client) => clients.delete(client));
  // An idle connection that drops is removed by the pool; the error is only worth a log line.
  pool.on("error", (error) => options.onError?.(error));

  let up = true;
  let closed = false;

  // LISTEN: one connection of its own, reopened with every channel when it drops.
  const channels = new Map<string, Set<(payload: string) => void>>();
  let listener: pg.Client | undefined;
  let listening: Promise<pg.Client> | undefined;
  let relisten: NodeJS.Timeout | undefined;
  const dropListener = (client: pg.Client) => {
    if (listener !== client) return;
    listener = undefined;
    listening = undefined;
    destroy(client);
    void client.end().catch(() => {});
    if (!closed && channels.size > 0 && !relisten) {
      relisten = setTimeout(() => {
        relisten = undefined;
        void openListener().catch(() => {});
      }, 1_000);
      relisten.unref();
    }
  };
  const openListener = (): Promise<pg.Client> => {
    listening ??= (async () => {
      const client = new pg.Client(listenLimits);
      listener = client;
      client.on("notification", (message) => {
        for (const onPayload of channels.get(message.channel) ?? []) onPayload(message.payload ?? "");
      });
      client.on("error", (error) => {
        options.onError?.(error);
        dropListener(client);
      });
      client.on("end", () => dropListener(client));
      try {
        await client.connect();
        for (const channel of channels.keys()) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        dropListener(client);
        throw withPoolerHint(error, options.listenUrl ? "direct" : "pooled");
      }
      return client;
    })();
    return listening;
  };

  let timer: NodeJS.Timeout | undefined;
  let probe: pg.Client | undefined;
  const check = async () => {
    let deadline: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          if (!probe) {
            const client = new pg.Client({ ...limits, connectionTimeoutMillis: options.probeTimeoutMs, ...startupTimeout(options.probeTimeoutMs) });
            client.on("error", () => {});
            probe = client;
            await client.connect();
          }
          await probe.query("select 1");
        })(),
        new Promise((_, reject) => {
          // The deadline yields to one more I/O phase before it counts: a process whose event loop
          // was busy past the deadline reads an answer that already arrived, instead of calling
          // a database down that answered in time.
          deadline = setTimeout(
            () => setImmediate(() => reject(Object.assign(new Error(`no answer within ${options.probeTimeoutMs} ms`), { code: "ETIMEDOUT" }))),
            options.probeTimeoutMs,
          );
        }),
      ]);
      if (!up && !closed) {
        up = true;
        options.onChange?.(true);
        // Whatever LISTEN connection survived the outage may have missed its end: a fresh one.
        if (listener) dropListener(listener);
        else if (channels.size > 0) void openListener().catch(() => {});
      }
    } catch (error) {
      // The probe's own connection may be the one that hangs: thrown away with its query.
      if (probe) {
        destroy(probe);
        void probe.end().catch(() => {});
        probe = undefined;
      }
      if (up && !closed) {
        up = false;
        // Queries stuck on connections whose packets vanish fail now; new ones are opened as needed.
        for (const client of clients) destroy(client);
        options.onChange?.(false, error);
      }
    } finally {
      clearTimeout(deadline);
    }
  };
  const loop = () => {
    if (closed) return;
    timer = setTimeout(() => void check().finally(loop), options.probeMs);
    timer.unref();
  };
  if (options.probeMs > 0) loop();

  return {
    pool,
    available: () => up,
    async listen(channel, onPayload) {
      let subscribers = channels.get(channel);
      const first = !subscribers;
      if (!subscribers) channels.set(channel, (subscribers = new Set()));
      subscribers.add(onPayload);
      try {
        const client = await openListener();
        // A fresh connection subscribed to every channel already; an open one needs this one.
        if (first) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        subscribers.delete(onPayload);
        if (subscribers.size === 0) channels.delete(channel);
        throw error;
      }
      return async () => {
        subscribers.delete(onPayload);
        if (subscribers.size > 0 || channels.get(channel) !== subscribers) return;
        channels.delete(channel);
        await listener?.query(`unlisten ${pg.escapeIdentifier(channel)}`).catch(() => {});
      };
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(relisten);
      const client = listener;
      listener = undefined;
      await Promise.all([pool.end(), client?.end().catch(() => {}), probe?.end().catch(() => {})]);
    },
  };
}
