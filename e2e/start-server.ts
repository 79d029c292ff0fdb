/**
 * Starts the server (compiled: dist/server.mjs) on a fresh database for the e2e suite, so every run begins at the first-run
 * form: a new PGlite folder, or a new database on the PostgreSQL server of DATABASE_URL.
 */
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { dropStaleDatabases } from "../test/stale-databases";

async function freshDatabase() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dir = path.resolve(`test-results/e2e-data-${process.env.PORT ?? "default"}`);
    rmSync(dir, { recursive: true, force: true });
    process.env.HOOKPLANE_DATA_DIR = dir;
    return;
  }
  const postgres = (await import("postgres")).default;
  const name = `hp_e2e_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  // This server is ended by a signal and never drops its database: the next run drops old ones.
  await dropStaleDatabases(admin, "hp_e2e_");
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
}

await freshDatabase();
// What ships: the compiled server (npm test builds it first); the sources when there is no build.
const compiled = path.resolve("dist/server.mjs");
await import(existsSync(compiled) ? pathToFileURL(compiled).href : "../server");
