import { otelLogsRoute } from "@/lib/features/bridge/session-sightings";

/** A coding agent's OpenTelemetry logs (OTLP/HTTP JSON): which of its sessions ran without Hookplane's hooks. */
export const POST = otelLogsRoute;
