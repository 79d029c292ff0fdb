/**
 * Group commit on PostgreSQL's pool, for executeStatement (the hook path's statements of fixed
 * text). Every bridged tool call is a read and a write of one row or a few; sent one by one, each
 * is a round trip, a commit with its WAL flush, and a wake-up of a database backend on a machine
 * whose cores the web process needs (issue 26). So the statements sent in one turn of the event
 * loop while the last group ran go together: one connection, one simple query of `EXECUTE`s of
 * statements PREPAREd once on that connection, one implicit transaction, one commit; each is
 * answered with its own rows once the group is durable. One group runs at a time, so groups never
 * wait on each other's row locks (two processes' groups can: PostgreSQL ends one after its
 * deadlock_timeout, and its statements run again alone). Statements written to be batched go as
 * one EXECUTE for all their callers in the group (statement-batches.ts).
 *
 * A statement alone goes out as before (named, on any pooled connection). A value that cannot be
 * written as a literal (an array, a date: sql-literal.ts) sends its statement alone too. If a
 * statement of a group fails, the group rolled back whole and each of its statements runs again
 * alone, so one statement's error is its own; if the connection fails, the group may have
 * committed, so its callers get the error and nothing is run twice.
 *
 * Behind a pooler in transaction mode (HOOKPLANE_DB_POOLER=transaction) no statement stays
 * PREPAREd on a connection: each server connection serves whichever transaction comes. A simple
 * query is one transaction on one server connection, though, so there the group's message carries
 * its own PREPAREs before its EXECUTEs and DEALLOCATEs after them (`perMessage`): each text parsed
 * once a group, a batch planned once for all its callers. Sent one by one, unnamed, every call paid
 * the parse and plan of a statement of five CTEs and a commit of its own: 1.6 ms of the database's
 * CPU a call under bench:ingest's 200 sessions, against 0.08 ms directly. `prepare=false` alone
 * turns the group commit off.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { executeText, isLiteralValue } from "./sql-literal";
import { groupUnits, settleUnit, type GroupedStatement, type GroupUnit } from "./statement-batches";
import { StatementGroups, type Waiting } from "./statement-groups";

/** Texts PREPAREd on one connection at most; past it, a new text goes out alone. */
const PREPARED_PER_CONNECTION = 100;

type Rows = Record<string, unknown>[];
type Entry = GroupedStatement & Waiting<Rows>;

const GROUP_COMMIT = Symbol.for("hookplane.pgGroupCommit");
type WithGroupCommit = { [GROUP_COMMIT]?: GroupCommit };

/**
 * This process's part of the names its groups' messages PREPARE: random, as processes of other
 * machines (each pid 1 in its container) share the pooler's server connections.
 */
const PROCESS_TAG = randomBytes(4).toString("hex");

/** Statement names of each pooled connection, by text (on the connection object: a new connection starts empty). */
const preparedByClient = new WeakMap<object, Map<string, string>>();
let statementCount = 0;

export class GroupCommit extends StatementGroups<Entry> {
  /** Groups of two or more sent, for tests and benchmarks. */
  groups = 0;
  /** EXECUTEs those groups held (a batch's one for all its callers), for tests and benchmarks. */
  executions = 0;
  /** Statements run alone (a group of one, or again after their group failed), for tests. */
  alone = 0;

  /** `perMessage`: the statements are PREPAREd in each group's own message, not once per connection (above). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly perMessage = false,
  ) {
    super(true);
  }

  /** `batchKey`: the statement may run batched with others of its text (statement-batches.ts). */
  run(text: string, params: unknown[], batchKey?: string): Promise<Rows> {
    if (!params.every(isLiteralValue)) return this.query(text, params);
    return new Promise((resolve, reject) => this.enqueue({ text, params, batchKey, resolve, reject }));
  }

  private async query(text: string, params: unknown[]): Promise<Rows> {
    return (await this.pool.query({ text, values: params })).rows as Rows;
  }

  protected runAlone(entry: Entry): Promise<void> {
    this.alone++;
    return this.query(entry.text, entry.params).then(entry.resolve, entry.reject);
  }

  /**
   * The group on one connection; whatever was not settled there (a text it could not PREPARE, a
   * group that rolled back) runs alone after the connection is back in the pool.
   */
  protected async runGroup(group: Entry[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
    let alone: Entry[] = [];
    let broken: Error | undefined;
    try {
      const names = this.perMessage ? this.messageNames(group) : await this.prepare(client, group);
      const grouped = group.filter((entry) => names.has(entry.text));
      alone = group.filter((entry) => !names.has(entry.text));
      if (grouped.length > 0) {
        const failure = await this.send(client, groupUnits(grouped), names);
        // A statement's ERROR rolled the group back: each alone, so only the one at fault fails.
        if (failure !== undefined && rolledBack(failure)) alone.unshift(...grouped);
        else if (failure !== undefined) {
          // The connection failed or was ended: whether the group committed is unknown, so it is
          // not run again (that could apply it twice); each caller gets the error, as a statement
          // sent alone on that connection would have.
          broken = failure as Error;
          for (const entry of grouped) entry.reject(failure);
        }
      }
    } catch (error) {
      // PREPARE itself lost the connection: nothing of the group ran.
      broken = error as Error;
      for (const entry of group) entry.reject(error);
      alone = [];
    } finally {
      // A connection that broke is dropped by the pool; one whose statement failed is kept.
      client.release(broken);
    }
    for (const entry of alone) await this.runAlone(entry);
  }

  /** One simple query of the group's EXECUTEs (a batch's one for all its callers); settles each on success, else returns the error. */
  private async send(client: pg.PoolClient, units: GroupUnit<Entry>[], names: Map<string, string>): Promise<unknown> {
    const executes = units.map((unit) => executeText(names.get(unit.text)!, unit.params));
    // Per message: its PREPAREs first and its DEALLOCATEs last, each answered with no rows (a
    // text's last line may be a `--` comment: the semicolon goes on a line of its own).
    const prepares = this.perMessage ? [...names].map(([text, name]) => `prepare ${name} as ${text}\n`) : [];
    const deallocates = this.perMessage ? [...names.values()].map((name) => `deallocate ${name}`) : [];
    const query = [...prepares, ...executes, ...deallocates].join(";\n");
    try {
      const results = (await client.query(query)) as unknown as pg.QueryResult | pg.QueryResult[];
      const list = (Array.isArray(results) ? results : [results]).slice(prepares.length);
      this.groups++;
      this.executions += units.length;
      units.forEach((unit, i) => settleUnit(unit, (list[i]?.rows ?? []) as Rows));
      return undefined;
    } catch (error) {
      return error;
    }
  }

  /**
   * Names for the group's texts in its own message, never seen before on any server connection: a
   * message that failed part way left its PREPAREs behind, unDEALLOCATEd, on whichever one ran it.
   */
  private messageNames(group: Entry[]): Map<string, string> {
    const names = new Map<string, string>();
    for (const { text } of group) if (!names.has(text)) names.set(text, `hp_message_${PROCESS_TAG}_${++statementCount}`);
    return names;
  }

  /** The names of the group's texts PREPAREd on this connection (a text it has no room for is left out). */
  private async prepare(client: pg.PoolClient, group: Entry[]): Promise<Map<string, string>> {
    let known = preparedByClient.get(client);
    if (!known) preparedByClient.set(client, (known = new Map()));
    const names = new Map<string, string>();
    for (const { text } of group) {
      if (names.has(text)) continue;
      let name = known.get(text);
      if (name === undefined && known.size < PREPARED_PER_CONNECTION) {
        name = `hp_group_${++statementCount}`;
        try {
          await client.query(`prepare ${name} as ${text}`);
          known.set(text, name);
        } catch (error) {
          if (!isStatementError(error)) throw error;
          // A text PostgreSQL will not prepare runs alone, where its error reaches its caller.
          name = undefined;
        }
      }
      if (name !== undefined) names.set(text, name);
    }
    return names;
  }
}

/** The SQLSTATE PostgreSQL reported, if it did (a connection that failed has none). */
function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** An error PostgreSQL reported for a statement it refused (PREPARE of a bad text). */
function isStatementError(error: unknown): boolean {
  return sqlState(error) !== undefined;
}

/**
 * Whether a group's error means it rolled back: an ERROR PostgreSQL reported while the group's
 * transaction was open (a constraint, a type, a deadlock, a statement timeout). Not a FATAL or
 * PANIC (a terminated backend, a shutdown: it may come after the commit), a connection exception
 * (08), or no SQLSTATE at all (the connection broke): then the group may have committed.
 */
function rolledBack(error: unknown): boolean {
  const state = sqlState(error);
  const severity = (error as { severity?: unknown }).severity;
  return state !== undefined && severity !== "FATAL" && severity !== "PANIC" && !state.startsWith("08");
}

/** Turns group commit on for a pool's executeStatement calls (`perMessage` behind a pooler in transaction mode). */
export function enableGroupCommit(pool: pg.Pool, options: { perMessage?: boolean } = {}): void {
  (pool as unknown as WithGroupCommit)[GROUP_COMMIT] = new GroupCommit(pool, options.perMessage);
}

/** The group commit of a pool that has it on; undefined for a connection, a transaction's client or a pool without. */
export function groupCommitOf(client: unknown): GroupCommit | undefined {
  return client && typeof client === "object" ? (client as WithGroupCommit)[GROUP_COMMIT] : undefined;
}
