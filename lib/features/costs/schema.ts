/**
 * What the costs feature answers, declared once: the report as buildCostReport assembles it, sent
 * by GET /api/v1/costs and read by the cost dashboard with that type.
 */
import type { Json } from "@/lib/platform/api/json";
import type { buildCostReport } from "./cost-report";

/** GET /api/v1/costs. */
export type CostReport = Json<Awaited<ReturnType<typeof buildCostReport>>>;
