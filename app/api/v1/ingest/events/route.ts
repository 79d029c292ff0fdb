import { getDatabase } from "@/db/client";
import { apiRoute } from "@/lib/platform/api/route";
import { ingestAnswer, ingestEventSchema } from "@/lib/features/bridge/ingest-requests";
import { ingestSessionEvent } from "@/lib/features/bridge/session-ingest";

/** A canonical event of any runtime's session in, the hooks' decision out (api.md, External agents). */
export const POST = apiRoute({ role: "operator", body: ingestEventSchema }, async ({ request, principal, body }) => {
  const handle = await getDatabase();
  const { runId, seq, result } = await ingestSessionEvent(
    handle,
    principal,
    { agent: body.agent, sessionId: body.sessionId, source: body.source, type: body.event.type, data: body.event.data, title: `${body.source} session ${body.sessionId.slice(0, 8)}` },
    request.signal,
  );
  return ingestAnswer(runId, seq, result);
});
