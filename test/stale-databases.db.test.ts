/**
 * Databases left on PostgreSQL by runs that were killed are dropped by a later run; a database of a
 * run going on beside it (a new one) is never touched.
 */
import { expect, test } from "vitest";
import { dropStaleDatabases } from "./stale-databases";

test.runIf(process.env.DATABASE_URL)("a run's old databases are dropped, a new one beside it is kept", async () => {
  const postgres = (await import("postgres")).default;
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    const now = Date.now();
    const old = `hp_e2e_${(now - 7 * 60 * 60 * 1000).toString(36)}`;
    const recent = `hp_e2e_${(now - 60 * 60 * 1000).toString(36)}`;
    const other = `hpx_e2e_${(now - 7 * 60 * 60 * 1000).toString(36)}`;
    for (const name of [old, recent, other]) await admin.unsafe(`create database ${name}`);
    await dropStaleDatabases(admin, "hp_e2e_", now);
    const left = (await admin<{ datname: string }[]>`select datname from pg_database where datname in (${old}, ${recent}, ${other})`).map((r) => r.datname).sort();
    expect(left).toEqual([recent, other].sort());
    for (const name of [recent, other]) await admin.unsafe(`drop database ${name}`);
  } finally {
    await admin.end();
  }
});
