/**
 * What the runs feature answers, declared once: the server builds it (db/queries/runs.ts
 * `runToApi`), the API and the stream's `run` message send it, and the browser reads the same type.
 */
import type { listRunEventsAfter } from "@/db/queries/run-events";
import type { RunApi } from "@/db/queries/runs";
import type { Json } from "@/lib/platform/api/json";

/** A run as GET /api/v1/runs/{id}, the runs list and the stream's `run` message send it. */
export type RunResponse = Json<RunApi>;

/**
 * One stored event of a run as GET /api/v1/runs/{id}/events pages it (the stream's `event` message
 * carries the same fields); narrow its payload by type with `isEventOf` (lib/core/hooks/event-payloads.ts).
 */
export type RunEventResponse = Json<Awaited<ReturnType<typeof listRunEventsAfter>>[number]>;
