/**
 * The embedded database on a thread of its own. PGlite runs PostgreSQL as WebAssembly on the thread
 * that calls it, synchronously, fsyncs included: in the web process it took about half of every
 * bridged hook call's CPU (bench:ingest's profile: its WebAssembly and its JavaScript 46% of the
 * samples) on the thread that also reads the requests and runs the hooks, while the machine's
 * other core stayed idle. Here a worker thread (db/pglite-thread-worker.ts) holds PGlite, and this
 * side offers what Hookplane and drizzle's PGlite driver call on it (query, exec, transaction,
 * listen, close), each a message: statements run while this thread serves requests, and a group
 * commit (db/client.ts, StatementQueue) is one message each way.
 *
 * It is the default on disk (HOOKPLANE_PGLITE_THREAD=0 turns it off): the thread is a second V8
 * isolate and Node environment, and the idle web process holds ~20 MB more (230-233 MB against
 * 211-214, session 23, once Next stopped loading SWC at start: lib/process/next-built-config.ts),
 * within the 250 MB issue 12 keeps it under. Measured with bench:ingest at 50 sessions on PGlite,
 * alternated: 503 and 540 calls/s on the process's thread, 664 and 637 on its own (+22-32%).
 *
 * What does not cross a thread is said here: drizzle's parsers are identity functions for some
 * types, sent as the list of those types (the thread keeps their text); an error comes back as its
 * message, name and PostgreSQL's fields (code, detail, constraint...). A notification is
 * delivered by the thread before the result of the statement that sent it, as in the process.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { addThreadSyncs } from "./pglite-durability";
import { fromThreadError, ON_OWN_THREAD, type QueryResult, type ThreadReply, type ThreadRequest, type ThreadStart } from "./pglite-thread-protocol";

type ThreadCall = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
type QueryOptions = { rowMode?: "array" | "object"; parsers?: Record<number, (value: string, typeId?: number) => unknown> };

/**
 * The worker: the script built beside the server (dist/pglite-thread.mjs), or where this file is
 * its TypeScript source (tests, development) that source, loaded through tsx.
 */
function startWorker(start: ThreadStart): Worker {
  const here = fileURLToPath(import.meta.url);
  const built = here.endsWith(".mjs") ? path.join(path.dirname(here), "pglite-thread.mjs") : path.resolve("dist/pglite-thread.mjs");
  // Next's bundle of a route (.next/server/...) finds the server's build from the working directory.
  if (here.endsWith(".mjs") || (here.includes(`${path.sep}.next${path.sep}`) && existsSync(built))) return new Worker(built, { workerData: start });
  const source = pathToFileURL(path.join(path.dirname(here), "pglite-thread-worker.ts")).href;
  const load = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`;
  return new Worker(load, { eval: true, workerData: start });
}

/** Which types a query's parsers keep as text: drizzle's are all the identity; any other cannot cross. */
function rawTypes(parsers: QueryOptions["parsers"]): number[] | undefined {
  if (!parsers) return undefined;
  const types = Object.keys(parsers).map(Number);
  for (const type of types) {
    if (parsers[type]("\u0001probe") !== "\u0001probe") throw new Error(`the embedded database's thread cannot run parser ${type}: only parsers that keep the text`);
  }
  return types;
}

export class PgliteThread {
  readonly [ON_OWN_THREAD] = true;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Map<number, (payload: string) => void>();
  private serial = 0;
  /** Why calls fail from now on: the thread stopped, or the database was closed. */
  private stopped: Error | undefined;
  /** close() was called: the thread's end is asked for, not lost. */
  private closing = false;
  private readonly lostListeners: ((error: Error) => void)[] = [];

  private constructor(start: ThreadStart) {
    this.worker = startWorker(start);
    this.worker.on("message", (reply: ThreadReply) => this.receive(reply));
    this.worker.on("error", (error) => this.stop(error));
    this.worker.on("exit", (code) => this.stop(new Error(`the embedded database's thread stopped (exit ${code})`)));
  }

  /** Opens the database in `dataDir` on its thread (the folder must hold a database: createDatabaseApart). */
  static async open(options: { dataDir: string; fsync: boolean }): Promise<PgliteThread> {
    const syncs = new SharedArrayBuffer(4);
    addThreadSyncs(new Int32Array(syncs));
    const thread = new PgliteThread({ dataDir: options.dataDir, fsync: options.fsync, syncs });
    // The first answer comes once PGlite is open, or with why it could not open: then the thread
    // goes too, or it would keep the process alive.
    try {
      await thread.query("select 1");
    } catch (error) {
      await thread.worker.terminate();
      throw error;
    }
    return thread;
  }

  get closed(): boolean {
    return this.stopped !== undefined;
  }

  private receive(reply: ThreadReply): void {
    if ("notify" in reply) {
      this.listeners.get(reply.notify)?.(reply.payload);
      return;
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(fromThreadError(reply.error));
  }

  private stop(error: Error): void {
    if (this.stopped) return;
    this.stopped = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    if (!this.closing) for (const listener of this.lostListeners) listener(error);
  }

  /**
   * Calls `listener` when the thread stops without close() (it crashed or was ended): a thread
   * does not come back, so every call fails from then on (the process ends: lib/process/boot.ts).
   */
  onLost(listener: (error: Error) => void): void {
    this.lostListeners.push(listener);
  }

  /** Sends one request and waits for its answer. */
  call<T>(request: ThreadCall): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.serial;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions, tx?: number): Promise<QueryResult & { rows: T[] }> {
    return this.call({ op: "query", text, params, rowMode: options?.rowMode, raw: rawTypes(options?.parsers), tx });
  }

  exec(text: string, tx?: number): Promise<QueryResult[]> {
    return this.call({ op: "exec", text, tx });
  }

  /** As PGlite's: `fn`'s statements in one transaction, committed when it returns, rolled back when it throws. */
  async transaction<T>(fn: (tx: PgliteThreadTransaction) => Promise<T>): Promise<T> {
    const number = await this.call<number>({ op: "begin" });
    const tx = new PgliteThreadTransaction(this, number);
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      if (!tx.closed) await tx.end(false).catch(() => {});
      throw error;
    }
    if (!tx.closed) await tx.end(true);
    return result;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const listener = await this.call<number>({ op: "listen", channel });
    this.listeners.set(listener, onPayload);
    return async () => {
      this.listeners.delete(listener);
      if (!this.stopped) await this.call({ op: "unlisten", listener });
    };
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.closing = true;
    await this.call({ op: "close" });
    this.stop(new Error("the embedded database is closed"));
    await this.worker.terminate();
  }
}

/** A transaction on the thread, as drizzle's driver uses PGlite's: its statements, and a rollback. */
export class PgliteThreadTransaction {
  #closed = false;

  constructor(
    private readonly thread: PgliteThread,
    private readonly number: number,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult & { rows: T[] }> {
    return this.thread.query<T>(text, params, options, this.number);
  }

  exec(text: string): Promise<QueryResult[]> {
    return this.thread.exec(text, this.number);
  }

  async rollback(): Promise<void> {
    await this.end(false);
  }

  /** Commits or rolls back; afterwards the transaction takes no statement. */
  async end(commit: boolean): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.thread.call({ op: "end", tx: this.number, commit });
  }
}
