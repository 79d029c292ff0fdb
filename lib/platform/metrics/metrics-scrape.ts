/**
 * One scrape: this process's metrics, with its database connections read now, and on the web
 * process the cluster's gauges read from the database (metrics-registry.ts says why they are
 * apart). Prometheus's text format.
 */
import type { DbHandle } from "@/db/client";
import { readClusterGauges } from "@/db/queries/cluster-gauges";
import { getMetrics } from "./metrics-registry";

export interface Scrape {
  contentType: string;
  body: string;
}

export async function scrapeMetrics(handle: DbHandle, options: { cluster?: { queue: string } } = {}): Promise<Scrape> {
  const metrics = getMetrics();
  const pool = handle.poolStats();
  metrics.poolConnections.set({ state: "total" }, pool.total);
  if (pool.idle !== undefined) metrics.poolConnections.set({ state: "idle" }, pool.idle);
  if (pool.waiting !== undefined) metrics.poolConnections.set({ state: "waiting" }, pool.waiting);
  metrics.poolMax.set(pool.max);
  if (!options.cluster) return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };

  const gauges = await readClusterGauges(handle.db, options.cluster);
  metrics.approvalsPending.set(gauges.approvalsPending);
  for (const [status, n] of Object.entries(gauges.runsByStatus)) metrics.runsByStatus.set({ status }, n);
  for (const [state, n] of Object.entries(gauges.queueJobs ?? {})) metrics.queueJobs.set({ state }, n);
  for (const [table, backlog] of Object.entries(gauges.unsealed)) {
    metrics.chainUnsealedRows.set({ table }, backlog.rows);
    metrics.chainOldestUnsealed.set({ table }, backlog.oldestSeconds);
  }
  // Two texts one after the other (Registry.merge would drop the process label of the first).
  const [own, cluster] = await Promise.all([metrics.registry.metrics(), metrics.cluster.metrics()]);
  return { contentType: metrics.registry.contentType, body: `${own}\n${cluster}` };
}
