/**
 * The embedded database's own thread (db/pglite-thread.ts says why): PGlite opened here, and every
 * request of the process run on it in the order PGlite itself would run it. Requests are not
 * awaited one after another: PGlite queues them (a statement outside a transaction waits for the
 * transaction in progress), so a statement of a transaction is never held behind one that waits
 * for that transaction to end.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { countSyncsInto, pgliteOptions } from "./pglite-durability";
import { toThreadError, type QueryResult, type ThreadReply, type ThreadRequest, type ThreadStart } from "./pglite-thread-protocol";

const start = workerData as ThreadStart;
const port = parentPort!;
/** Posts a reply; one that cannot be copied to the other thread goes back as that error. */
function post(reply: ThreadReply): void {
  try {
    port.postMessage(reply);
  } catch (error) {
    if (!("id" in reply)) throw error;
    port.postMessage({ id: reply.id, ok: false, error: toThreadError(error) } satisfies ThreadReply);
  }
}
const identity = (value: unknown) => value;

interface OpenTransaction {
  tx: Transaction;
  decide: (commit: boolean) => void;
  ended: Promise<void>;
}
const transactions = new Map<number, OpenTransaction>();
const listeners = new Map<number, () => Promise<void>>();
let serial = 0;

const opened = (async () => {
  countSyncsInto(new Int32Array(start.syncs));
  const { PGlite } = await import("@electric-sql/pglite");
  return PGlite.create(await pgliteOptions(start.dataDir, { fsync: start.fsync }));
})();

function result(r: { rows: unknown[]; fields: { name: string; dataTypeID: number }[]; affectedRows?: number }): QueryResult {
  return { rows: r.rows, fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), affectedRows: r.affectedRows };
}

/** The transaction a request names, or the database itself. */
function target(pg: PGlite, tx: number | undefined): PGlite | Transaction {
  if (tx === undefined) return pg;
  const open = transactions.get(tx);
  if (!open) throw new Error(`no transaction ${tx} is open on the embedded database`);
  return open.tx;
}

/** Runs BEGIN; answers with the transaction's number once it is open, and ends it when told to. */
function begin(pg: PGlite, id: number): void {
  const number = ++serial;
  let answered = false;
  let decide!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (decide = resolve));
  const ended = pg.transaction(async (tx) => {
    transactions.set(number, { tx, decide, ended });
    answered = true;
    post({ id, ok: true, value: number });
    if (!(await decided)) await tx.rollback();
  });
  ended.then(
    () => transactions.delete(number),
    (error) => {
      transactions.delete(number);
      if (!answered) post({ id, ok: false, error: toThreadError(error) });
    },
  );
}

async function handle(pg: PGlite, request: ThreadRequest): Promise<unknown> {
  switch (request.op) {
    case "query": {
      const parsers = request.raw && Object.fromEntries(request.raw.map((oid) => [oid, identity]));
      return result(await target(pg, request.tx).query(request.text, request.params, { rowMode: request.rowMode, parsers }));
    }
    case "exec":
      return (await target(pg, request.tx).exec(request.text)).map(result);
    case "end": {
      const open = transactions.get(request.tx);
      if (!open) throw new Error(`no transaction ${request.tx} is open on the embedded database`);
      open.decide(request.commit);
      await open.ended;
      return undefined;
    }
    case "listen": {
      const listener = ++serial;
      listeners.set(listener, await pg.listen(request.channel, (payload) => post({ notify: listener, payload })));
      return listener;
    }
    case "unlisten": {
      const stop = listeners.get(request.listener);
      listeners.delete(request.listener);
      await stop?.();
      return undefined;
    }
    case "close":
      if (!pg.closed) await pg.close();
      return undefined;
    case "begin":
      throw new Error("begin is answered by the transaction itself");
  }
}

port.on("message", (request: ThreadRequest) => {
  opened.then(
    (pg) => {
      if (request.op === "begin") return begin(pg, request.id);
      handle(pg, request).then(
        (value) => post({ id: request.id, ok: true, value }),
        (error) => post({ id: request.id, ok: false, error: toThreadError(error) }),
      );
    },
    (error) => post({ id: request.id, ok: false, error: toThreadError(error) }),
  );
});
