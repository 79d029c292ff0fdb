/**
 * `node dist/migrate.mjs`: applies drizzle/ to the database of DATABASE_URL and exits (the Helm
 * chart's migration Job). Every process also migrates at start, under the same advisory lock, so
 * this is for deployments that want schema changes applied once, before new pods start.
 */
import { configOrExit } from "@/lib/platform/config/config";
import { openDatabase } from "./client";
import { migrateDatabase } from "./migrate";

configOrExit();
const handle = await openDatabase();
try {
  await migrateDatabase(handle);
  console.log(`hookplane: migrations applied (${handle.kind})`);
} finally {
  await handle.close();
}
