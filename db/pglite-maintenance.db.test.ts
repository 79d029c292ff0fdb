/**
 * The embedded database's vacuum pass (db/pglite-durability.ts) judges a table by its dead rows as
 * they are now: the single backend's counts reach the statistics view late, and a pass that read
 * them stale let a busy second's dead rows pile up first. PGlite only, in memory.
 */
import { afterEach, describe, expect, test } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { startPgliteMaintenance, type Maintenance } from "./pglite-durability";

describe.skipIf(Boolean(process.env.DATABASE_URL))("PGlite maintenance", () => {
  let pg: PGlite | undefined;
  let maintenance: Maintenance | undefined;
  afterEach(async () => {
    await maintenance?.stop();
    await pg?.close();
  });

  test("a pass right after a burst of updates vacuums the table they left dead rows in, and only it", async () => {
    pg = new PGlite();
    await pg.exec(`create table busy (id int primary key, v int); insert into busy select g, 0 from generate_series(1, 100) g;
                   create table quiet (id int primary key, v int); insert into quiet select g, 0 from generate_series(1, 100) g`);
    maintenance = startPgliteMaintenance(pg, { intervalMs: 0 });
    await maintenance.runOnce(); // the inserts' counts settle; nothing is dead yet
    for (let i = 0; i < 5; i++) await pg.query("update busy set v = v + 1");

    expect(await maintenance.runOnce()).toEqual(["public.busy"]);
    await pg.query("select pg_stat_force_next_flush()");
    const { rows } = await pg.query<{ name: string; dead: number; vacuums: number }>(
      "select relname as name, n_dead_tup::int as dead, vacuum_count::int as vacuums from pg_stat_user_tables order by relname",
    );
    expect(rows).toEqual([
      { name: "busy", dead: 0, vacuums: 1 },
      { name: "quiet", dead: 0, vacuums: 0 },
    ]);
    expect(await maintenance.runOnce()).toEqual([]);
  });
});
