import { getDatabase } from "@/db/client";
import { DATABASE_RETRY_AFTER_S } from "@/lib/platform/api/app-error";
import { APP_VERSION } from "@/lib/platform/version";

export const dynamic = "force-dynamic";

/** How long the check waits for `select 1`: the health answer comes within it, up or down. */
const CHECK_TIMEOUT_MS = 3_000;

function down(message: string): Response {
  return Response.json(
    { ok: false, db: "down", version: APP_VERSION, error: { code: "database_unavailable", message } },
    { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_S), "cache-control": "no-store" } },
  );
}

export async function GET() {
  let timer: NodeJS.Timeout | undefined;
  try {
    const handle = await getDatabase();
    if (!handle.available()) return down("the database does not answer its probe");
    await Promise.race([
      handle.execute("select 1"),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return Response.json({ ok: true, db: handle.kind, version: APP_VERSION }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return down((error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}
