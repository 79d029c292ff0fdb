/** What the herdctl importer and exporter share: its names, defaults and mappings. */
import { type Outcome } from "@/lib/core/hooks/events";

export const HERDCTL_OUTCOMES: readonly Outcome[] = ["completed", "failed", "timeout", "cancelled"];

export const DEFAULT_TIMEOUT_MS: Record<string, number> = { shell: 30_000, webhook: 10_000 };
