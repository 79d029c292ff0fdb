/**
 * Which names a hook's matcher hits, with the runtime's own `compileMatcher`, so the preview and
 * the dispatch never disagree.
 */
import type { EventName } from "@/lib/core/hooks/events";
import { compileMatcher } from "@/lib/core/hooks/matcher";

/** Events whose matcher is tested against a tool name; the others test the agent's name. */
const TOOL_EVENTS: ReadonlySet<string> = new Set<EventName>(["tool.pre", "tool.post", "approval.requested", "approval.settled"]);

export function matcherSubjectKind(event: string): "tool" | "agent" {
  return TOOL_EVENTS.has(event) ? "tool" : "agent";
}

export interface MatcherPreview {
  error?: string;
  hits: string[];
  misses: string[];
}

export function previewMatcher(matcher: string, names: readonly string[]): MatcherPreview {
  let matches: (name: string) => boolean;
  try {
    matches = compileMatcher(matcher);
  } catch (error) {
    return { error: (error as Error).message, hits: [], misses: [...names] };
  }
  return { hits: names.filter((n) => matches(n)), misses: names.filter((n) => !matches(n)) };
}
