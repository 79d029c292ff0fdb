import { INGEST_ROUTES } from "@/lib/features/bridge/ingest-routes";

/** Served from node:http by server.ts too (lib/features/bridge/ingest-direct.ts); this is the same handler under Next. */
export const POST = INGEST_ROUTES["offline"];
