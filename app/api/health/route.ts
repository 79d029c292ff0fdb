import { getDatabase } from "@/db/client";
import { APP_VERSION } from "@/lib/platform/version";

export const dynamic = "force-dynamic";

export async function GET() {
  try {
    const handle = await getDatabase();
    await handle.execute("select 1");
    return Response.json({ ok: true, db: handle.kind, version: APP_VERSION });
  } catch (error) {
    return Response.json({ ok: false, error: { code: "db_unavailable", message: (error as Error).message } }, { status: 503 });
  }
}
