import { getDatabase } from "@/db/client";
import { RUN_QUEUE } from "@/lib/features/runs/queue/run-queue-name";
import { apiRoute } from "@/lib/platform/api/route";
import { requireMetricsAccess } from "@/lib/platform/metrics/metrics-access";
import { scrapeMetrics } from "@/lib/platform/metrics/metrics-scrape";

export const dynamic = "force-dynamic";

/** Prometheus's scrape (docs/operations.md: Metrics): the metrics token or an admin. */
export const GET = apiRoute({ role: null }, async ({ db, request }) => {
  await requireMetricsAccess(db, request);
  const { contentType, body } = await scrapeMetrics(await getDatabase(), { cluster: { queue: RUN_QUEUE } });
  return new Response(body, { headers: { "content-type": contentType } });
});
