/**
 * A migrated in-memory PGlite data directory, made once per set of migrations and PGlite version
 * and kept in the temp folder: each test file's fresh database loads it (~0.45 s, ~0.65 s of CPU)
 * instead of running initdb and every migration again (~2.4 s, ~2.9 s of CPU), which was most of
 * what a database test file cost on PGlite. Two processes that find it missing at once each make
 * it; the second rename wins, both whole.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { DbHandle } from "../db/db-handle";
import { migrateDatabase, migrationsFolder } from "../db/migrate";

const PREFIX = "hookplane-pglite-template-";

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Names the migrations' bytes and the PGlite that ran them: a changed migration makes a new template. */
function templateFile(): string {
  const hash = createHash("sha256");
  for (const file of filesUnder(migrationsFolder())) hash.update(path.relative(migrationsFolder(), file)).update(readFileSync(file));
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  hash.update(readFileSync(path.join(path.dirname(entry), "..", "package.json")));
  return path.join(os.tmpdir(), `${PREFIX}${hash.digest("hex").slice(0, 16)}.tar`);
}

async function makeTemplate(file: string): Promise<Blob> {
  const { useLiftoffOnly } = await import("../db/pglite-memory");
  useLiftoffOnly();
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const pg = await PGlite.create();
  try {
    await migrateDatabase({ kind: "pglite", db: drizzle({ client: pg }) } as unknown as DbHandle);
    const dump = await pg.dumpDataDir("none");
    const bytes = Buffer.from(await dump.arrayBuffer());
    // Older templates (earlier migrations) go; this one appears whole or not at all.
    for (const name of readdirSync(os.tmpdir())) {
      if (name.startsWith(PREFIX) && name.endsWith(".tar")) rmSync(path.join(os.tmpdir(), name), { force: true });
    }
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, bytes);
    renameSync(partial, file);
    return dump;
  } finally {
    await pg.close();
  }
}

/** The migrated data directory to start an in-memory PGlite from. */
export async function migratedPgliteTemplate(): Promise<Blob> {
  const file = templateFile();
  try {
    return new Blob([readFileSync(file)]);
  } catch (error) {
    // Not made yet, or just removed by a run on other migrations (another checkout): made here.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return makeTemplate(file);
}
