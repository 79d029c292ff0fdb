import { createTestDatabase } from "@/test/database";
import { ensurePartitions, listPartitions } from "@/db/queries/partitions";
const t = await createTestDatabase();
const now = new Date();
console.log(await ensurePartitions(t.db, { table: "run_events", period: "day", until: new Date(now.getTime() + 3 * 86400000) }));
console.log(await ensurePartitions(t.db, { table: "run_events", period: "month", until: new Date(now.getTime() + 60 * 86400000) }));
console.log(await ensurePartitions(t.db, { table: "hook_invocations", period: "day", until: new Date(now.getTime() + 2 * 86400000) }));
console.log(await listPartitions(t.db, { table: "run_events" }));
await t.drop();
