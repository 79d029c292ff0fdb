/** What the tailored-ai importer and exporter share: its names, defaults and mappings. */
import type { EventName } from "@/lib/core/hooks/events";

/**
 * Tailored AI's loop calls the model at most `maxToolRounds` times (an agent's own, else the
 * `agent` section's, else 10): Hookplane's maxTurns, model calls per run.
 */
export const TAI_DEFAULT_TOOL_ROUNDS = 10;

/** Runtime events of `hooks.on` → canonical; null = process lifecycle phases with no run around them. */
export const ON_EVENTS: Record<string, EventName | null> = {
  "agent.pre_tool_use": "tool.pre",
  "agent.post_tool_use": "tool.post",
  "approval.requested": "approval.requested",
  "approval.settled": "approval.settled",
  "tai:init:start": null,
  "tai:init:end": null,
  "tai:shutdown:start": null,
  "tai:shutdown:end": null,
};

/** A whole-name matcher as Tailored AI's `when.tool`: an exact name, or an anchored /regex/. */
export function toolWhen(matcher: string): string {
  return /^[\w.-]+$/.test(matcher) ? matcher : `/^(?:${matcher})$/`;
}
