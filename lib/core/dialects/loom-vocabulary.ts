/** What the loom importer and exporter share: its names, defaults and mappings. */
import { type EventName } from "@/lib/core/hooks/events";

export const BUCKET_EVENTS: Record<string, EventName> = {
  onStart: "session.start",
  onToolCall: "tool.pre",
  onToolEnd: "tool.post",
  onModelCall: "model.pre",
  onModelEnd: "model.post",
  onComplete: "session.end",
  onError: "error",
};

export const COMMAND_TIMEOUT_MS = 5_000;

export const HITL_TIMEOUT_MS = 30 * 60 * 1000;

/** Loom's default when a profile names no model. */
export const LOOM_DEFAULT_MODEL = "openai:gpt-5.5";

/** Loom's own defaults (its profile schema): a profile that leaves them out runs with these. */
export const LOOM_DEFAULT_MAX_TURNS = 100;

export const LOOM_DEFAULT_TIMEOUT = "30m";
