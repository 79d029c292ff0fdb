/**
 * Hookplane's Prometheus metrics (prom-client), one set per process, kept on globalThis so
 * server.ts's bundle and Next's route handlers record into and serve the same registry.
 *
 * Two registries, because the web process and the workers are separate processes:
 * - `process`: what this process did (counters and latency histograms recorded where the work
 *   happens: runs, events, hooks, approvals decided here) and what it holds (WebSocket
 *   subscribers, database connections), labelled `process="web"|"worker"`. Each process serves
 *   its own (the web process on /metrics, a worker on HOOKPLANE_METRICS_PORT); Prometheus sums.
 * - `cluster`: facts of the whole installation read from the database at scrape time (approvals
 *   pending, runs by status, queue jobs), served by the web process only, so they are right
 *   however many workers there are and are not counted once per process.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RUN_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600];
const DECISION_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 14400, 86400];

function createMetrics() {
  const registry = new Registry();
  const cluster = new Registry();
  registry.setDefaultLabels({ process: "web" });
  collectDefaultMetrics({ register: registry });
  const subscriberSources = new Set<() => number>();
  const inProcess = [registry];
  return {
    registry,
    cluster,
    subscriberSources,
    hookLabel: boundedLabel(200),
    eventTypeLabel: boundedLabel(100),
    outcomeLabel: boundedLabel(20),
    runsStarted: new Counter({ name: "hookplane_runs_started_total", help: "Runs whose first event this process wrote", registers: inProcess }),
    runsFinished: new Counter({
      name: "hookplane_runs_finished_total",
      help: "Runs that ended (session.end written by this process), by outcome",
      labelNames: ["outcome"],
      registers: inProcess,
    }),
    runDuration: new Histogram({
      name: "hookplane_run_duration_seconds",
      help: "From a run's start to its session.end, by outcome",
      labelNames: ["outcome"],
      buckets: RUN_BUCKETS,
      registers: inProcess,
    }),
    eventsWritten: new Counter({
      name: "hookplane_run_events_written_total",
      help: "Run events this process stored (rows of run_events), by event type",
      labelNames: ["type"],
      registers: inProcess,
    }),
    hookDispatch: new Histogram({
      name: "hookplane_hook_dispatch_duration_seconds",
      help: "One event's whole hook chain, for events with at least one hook bound, by event",
      labelNames: ["event"],
      buckets: LATENCY_BUCKETS,
      registers: inProcess,
    }),
    hookDuration: new Histogram({
      name: "hookplane_hook_duration_seconds",
      help: "One hook that matched, by its action type",
      labelNames: ["action"],
      buckets: LATENCY_BUCKETS,
      registers: inProcess,
    }),
    hookVerdicts: new Counter({
      name: "hookplane_hook_verdicts_total",
      help: "Hooks that matched, by hook id (the first 200 ids seen; then `other`), verdict (allow, block, skip; none for hooks that only notify) and whether the hook failed (its verdict is then its onFailure's)",
      labelNames: ["hook", "verdict", "failed"],
      registers: inProcess,
    }),
    approvalDecision: new Histogram({
      name: "hookplane_approval_decision_seconds",
      help: "From an approval's request to a person's decision, by decision",
      labelNames: ["decision"],
      buckets: DECISION_BUCKETS,
      registers: inProcess,
    }),
    subscribers: new Gauge({
      name: "hookplane_websocket_subscribers",
      help: "WebSocket connections to this process's stream hub",
      registers: inProcess,
      collect() {
        let total = 0;
        for (const count of subscriberSources) total += count();
        this.set(total);
      },
    }),
    chainRowsSealed: new Counter({
      name: "hookplane_chain_rows_sealed_total",
      help: "Rows this process's periodic sealer linked into a hash chain, by table (audit_log, hook_invocations)",
      labelNames: ["table"],
      registers: inProcess,
    }),
    chainSealDuration: new Histogram({
      name: "hookplane_chain_seal_duration_seconds",
      help: "One tick of this process's periodic sealer that sealed rows, by table, start to end: on PostgreSQL its transaction holds the chain's lock this long; on PGlite it also reads and hashes the rows before it takes the lock",
      labelNames: ["table"],
      buckets: LATENCY_BUCKETS,
      registers: inProcess,
    }),
    poolConnections: new Gauge({
      name: "hookplane_db_pool_connections",
      help: "This process's database connections: total, idle, and queries waiting for one (PostgreSQL); PGlite is one connection in the process",
      labelNames: ["state"],
      registers: inProcess,
    }),
    poolMax: new Gauge({ name: "hookplane_db_pool_max", help: "The most connections this process opens (HOOKPLANE_DB_POOL)", registers: inProcess }),
    approvalsPending: new Gauge({ name: "hookplane_approvals_pending", help: "Approvals waiting for a person (from the database)", registers: [cluster] }),
    runsByStatus: new Gauge({
      name: "hookplane_runs",
      help: "Runs not finished, by status: queued, running, waiting_approval (from the database)",
      labelNames: ["status"],
      registers: [cluster],
    }),
    chainUnsealedRows: new Gauge({
      name: "hookplane_chain_unsealed_rows",
      help: "Rows written past the point each hash chain is sealed through, by table (counted up to 100,000; from the database)",
      labelNames: ["table"],
      registers: [cluster],
    }),
    chainOldestUnsealed: new Gauge({
      name: "hookplane_chain_oldest_unsealed_seconds",
      help: "How long the oldest row not sealed yet has waited, by table; 0 when every row is sealed (from the database)",
      labelNames: ["table"],
      registers: [cluster],
    }),
    queueJobs: new Gauge({
      name: "hookplane_queue_jobs",
      help: "Wake-ups in the run queue (pg-boss), by state: created is waiting for a worker",
      labelNames: ["state"],
      registers: [cluster],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

const KEY = Symbol.for("hookplane.metrics");
type GlobalWithMetrics = typeof globalThis & { [KEY]?: Metrics };

export function getMetrics(): Metrics {
  return ((globalThis as GlobalWithMetrics)[KEY] ??= createMetrics());
}

/** The worker says so at start; every metric of this process carries it. */
export function setMetricsProcess(role: "web" | "worker"): void {
  getMetrics().registry.setDefaultLabels({ process: role });
}

/** A stream hub's subscriber count, summed into hookplane_websocket_subscribers until the returned function is called. */
export function trackSubscribers(count: () => number): () => void {
  const sources = getMetrics().subscriberSources;
  sources.add(count);
  return () => sources.delete(count);
}

/** Tests: every counter and histogram back to zero. */
export function resetMetrics(): void {
  const metrics = getMetrics();
  metrics.registry.resetMetrics();
  metrics.cluster.resetMetrics();
}

/**
 * Label values taken from what users configure (hook ids, event types an outside agent sends)
 * stay bounded: the first `max` distinct values are kept (cut to 100 characters), later ones are
 * `other`, so a flood of names cannot grow the registry without end.
 */
export function boundedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    const label = value.slice(0, 100);
    if (seen.has(label)) return label;
    if (seen.size >= max) return "other";
    seen.add(label);
    return label;
  };
}
