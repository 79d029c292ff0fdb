/** What the herdctl importer and exporter share: its names, defaults and mappings. */
import { MAX_TURNS_LIMIT } from "@/lib/core/agent/agent-spec";
import { type Outcome } from "@/lib/core/hooks/events";

export const HERDCTL_OUTCOMES: readonly Outcome[] = ["completed", "failed", "timeout", "cancelled"];

export const DEFAULT_TIMEOUT_MS: Record<string, number> = { shell: 30_000, webhook: 10_000 };

/**
 * herdctl sets no turn limit when `max_turns` is absent (the Claude Agent SDK then runs until it is
 * done); a Hookplane agent always has one, 20 unless it says otherwise. Such an agent is imported
 * with the highest limit Hookplane has, and that limit exports as no `max_turns`.
 */
export const HERDCTL_UNLIMITED_TURNS = MAX_TURNS_LIMIT;
