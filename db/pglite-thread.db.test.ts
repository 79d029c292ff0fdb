/**
 * The embedded database on its own thread (db/pglite-thread.ts): what Hookplane and drizzle call on
 * PGlite answers there as it does on the process's thread (rows and their types, errors with
 * PostgreSQL's fields, transactions, notifications), the group commit's statements share fsyncs
 * counted across the thread, what is committed is on disk for the next open, and a thread that
 * dies fails every call at once instead of leaving it waiting. PGlite only: with DATABASE_URL
 * set, openDatabase opens PostgreSQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { setEnv } from "@/test/config-env";
import { executeStatement, isEmbedded, openDatabase, queryRows, type DbHandle } from "./client";
import { migrateDatabase } from "./migrate";
import { pgliteSyncCount } from "./pglite-durability";
import { PgliteThread } from "./pglite-thread";

const root = mkdtempSync(path.join(tmpdir(), "hookplane-pglite-thread-"));

/** A query of many types, as drizzle sends it (its identity parsers for dates, intervals, numeric[]). */
const TYPED = sql`select now() as "now", '2026-01-02 03:04:05.123456+00'::timestamptz as "ts", '1 day 02:03:04'::interval as "span",
  '2026-01-02'::date as "day", 12.5::numeric as "num", array[1.5, 2]::numeric[] as "nums", '{"b":[1,{"c":null}],"a":"é"}'::jsonb as "doc",
  array['x', null, 'z'] as "texts", '\\x00ff10'::bytea as "bytes", 9007199254740993::bigint as "big", 1.25::float8 as "dbl", null::text as "nothing", true as "yes"`;

describe.skipIf(Boolean(process.env.DATABASE_URL))("PGlite on its own thread", () => {
  let h: DbHandle;

  let restoreEnv: () => void;

  beforeAll(async () => {
    restoreEnv = setEnv({ HOOKPLANE_PGLITE_THREAD: "1" });
    h = await openDatabase({ dataDir: path.join(root, "main") });
    await migrateDatabase(h);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    restoreEnv();
    rmSync(root, { recursive: true, force: true });
  });

  test("a database on disk runs on a thread of its own, and answers as PGlite on this thread does", { timeout: 60_000 }, async () => {
    const client = (h.db as unknown as { $client: unknown }).$client;
    expect(client).toBeInstanceOf(PgliteThread);
    expect(isEmbedded(h.db)).toBe(true);
    const here = await openDatabase({ dataDir: "memory://" });
    await migrateDatabase(here);
    try {
      const [threaded] = await queryRows(h.db, TYPED);
      const [local] = await queryRows(here.db, TYPED);
      expect(typeof threaded.now).toBe("string");
      const { now: _a, ...threadedRest } = threaded;
      const { now: _b, ...localRest } = local;
      expect(threadedRest).toEqual(localRest);
      expect(threaded.bytes).toBeInstanceOf(Uint8Array);
      expect(Array.from(threaded.bytes as Uint8Array)).toEqual([0, 255, 16]);
      expect(local.bytes).toBeInstanceOf(Uint8Array);
      // Drizzle's own select maps the row as it does on this thread.
      const [project] = await h.db.query.projects.findMany({ limit: 1 });
      const [projectHere] = await here.db.query.projects.findMany({ limit: 1 });
      expect(Object.keys(project).sort()).toEqual(Object.keys(projectHere).sort());
      expect(project.createdAt).toBeInstanceOf(Date);
    } finally {
      await here.close();
    }
  });

  test("an error keeps PostgreSQL's fields: code, constraint, detail", async () => {
    await h.execute("create table thread_unique (id int primary key)");
    await h.execute("insert into thread_unique values (1)");
    const error = (await h.db.execute(sql`insert into thread_unique values (1)`).catch((e: unknown) => e)) as { cause?: Record<string, unknown> };
    expect(error.cause).toMatchObject({ code: "23505", constraint: "thread_unique_pkey", detail: "Key (id)=(1) already exists.", message: expect.stringMatching(/duplicate key/) });
    expect(error.cause).toBeInstanceOf(Error);
    await expect(h.execute("select 1/0", [])).rejects.toMatchObject({ code: "22012" });
  });

  test("a transaction commits when it returns and rolls back when it throws; a statement outside it waits for its end", async () => {
    await h.execute("create table thread_tx (id int primary key, note text)");
    await expect(
      h.db.transaction(async (tx) => {
        await tx.execute(sql`insert into thread_tx values (1, 'rolled back')`);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect((await h.execute("select count(*)::int as n from thread_tx")).rows).toEqual([{ n: 0 }]);

    let outside: Promise<unknown> | undefined;
    const order: string[] = [];
    await h.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_tx values (2, 'kept')`);
      outside = h.execute("select count(*)::int as n from thread_tx").then((r) => (order.push("outside"), r.rows));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // A savepoint (drizzle's nested transaction) rolled back alone.
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into thread_tx values (3, 'inner')`);
        inner.rollback();
      }).catch(() => {});
      order.push("commit");
    });
    // The statement sent during the transaction ran after it, and saw it committed.
    expect(await outside).toEqual([{ n: 1 }]);
    expect(order).toEqual(["commit", "outside"]);
    expect((await h.execute("select id, note from thread_tx order by id")).rows).toEqual([{ id: 2, note: "kept" }]);
  });

  test("notifications reach their listener, before the result of the statement that sent them, and stop when it unlistens", async () => {
    const got: string[] = [];
    const stop = await h.listen("thread_channel", (payload) => got.push(payload));
    await h.execute("select pg_notify('thread_channel', 'one')", []);
    expect(got).toEqual(["one"]);
    await h.notify("thread_channel", "two");
    expect(got).toEqual(["one", "two"]);
    await stop();
    await h.notify("thread_channel", "three");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(got).toEqual(["one", "two"]);
  });

  test("200 statements at once through the group commit: each answered with its own row, sharing fsyncs counted across the thread", async () => {
    await h.execute("create table thread_group (n int primary key)");
    const syncs = pgliteSyncCount();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, n) => executeStatement<{ n: number }>(h.db, "insert into thread_group values ($1) returning n", [n])),
    );
    expect(answers.map((rows) => rows[0].n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect((await h.execute("select count(*)::int as n from thread_group")).rows).toEqual([{ n: 200 }]);
    const used = pgliteSyncCount() - syncs;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(100);
  });

  test("what was committed is there when the folder is opened again", async () => {
    const dataDir = path.join(root, "reopened");
    const first = await openDatabase({ dataDir });
    await first.execute("create table kept (v text)");
    await first.execute("insert into kept values ($1)", ["still here"]);
    await first.close();
    const second = await openDatabase({ dataDir });
    expect((await second.execute("select v from kept")).rows).toEqual([{ v: "still here" }]);
    await second.close();
  }, 60_000);

  test("a thread that dies fails what waited on it and every later call, at once", async () => {
    const thread = await PgliteThread.open({ dataDir: path.join(root, "dies"), fsync: false });
    const waiting = thread.query("select pg_sleep(0.5)");
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(waiting).rejects.toThrow(/thread stopped/);
    await expect(thread.query("select 1")).rejects.toThrow(/thread stopped/);
    expect(thread.closed).toBe(true);
  }, 60_000);

  test("a lost thread is said once, and makes the handle unavailable; a closed one is not lost", async () => {
    const killWorker = (handle: DbHandle) => (handle.db as unknown as { $client: { worker: { terminate(): Promise<number> } } }).$client.worker.terminate();
    const lost = await openDatabase({ dataDir: path.join(root, "lost") });
    const losses: Error[] = [];
    lost.onLost!((error) => losses.push(error));
    expect(lost.available()).toBe(true);
    await killWorker(lost);
    await vi.waitFor(() => expect(losses).toHaveLength(1));
    expect(losses[0].message).toMatch(/thread stopped/);
    expect(lost.available()).toBe(false);
    await lost.close();
    expect(losses).toHaveLength(1);

    const closed = await openDatabase({ dataDir: path.join(root, "closed") });
    const closures: Error[] = [];
    closed.onLost!((error) => closures.push(error));
    await closed.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closures).toEqual([]);
    expect(closed.available()).toBe(false);
  }, 60_000);

  test("a process whose database thread is lost exits 1, so what supervises it starts it again", async () => {
    const restore = setEnv({ HOOKPLANE_DATA_DIR: path.join(root, "booted"), DATABASE_URL: undefined });
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const { bootProcess } = await import("@/lib/process/boot");
    const { closeDatabase } = await import("@/db/client");
    try {
      const { handle } = await bootProcess("web");
      expect(exit).not.toHaveBeenCalled();
      await (handle.db as unknown as { $client: { worker: { terminate(): Promise<number> } } }).$client.worker.terminate();
      await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
      expect(handle.available()).toBe(false);
    } finally {
      await closeDatabase();
      exit.mockRestore();
      restore();
    }
  }, 60_000);

  test("a folder the thread cannot open is refused, not waited on", async () => {
    const blocked = path.join(root, "a-file");
    writeFileSync(blocked, "not a folder");
    await expect(PgliteThread.open({ dataDir: path.join(blocked, "data"), fsync: true })).rejects.toThrow(/ENOTDIR|not a directory/i);
  }, 60_000);

  test("on disk it runs on its own thread by default (HOOKPLANE_PGLITE_THREAD unset); `0` keeps it on the process's", async () => {
    for (const [value, ownThread] of [[undefined, true], ["0", false]] as const) {
      const restore = setEnv({ HOOKPLANE_PGLITE_THREAD: value });
      try {
        const opened = await openDatabase({ dataDir: path.join(root, `default-${value ?? "unset"}`) });
        expect((opened.db as unknown as { $client: unknown }).$client instanceof PgliteThread).toBe(ownThread);
        expect((await opened.execute("select 41 + 1 as n")).rows).toEqual([{ n: 42 }]);
        await opened.close();
      } finally {
        restore();
      }
    }
  }, 60_000);
});
