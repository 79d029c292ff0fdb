/**
 * What the runs feature answers, declared once: the server builds it (db/queries/runs.ts
 * `runToApi`), the API and the stream's `run` message send it, and the browser reads the same type.
 */
import type { RunApi } from "@/db/queries/runs";
import type { Json } from "@/lib/platform/api/json";

/** A run as GET /api/v1/runs/{id}, the runs list and the stream's `run` message send it. */
export type RunResponse = Json<RunApi>;
