/**
 * Model names of the dialects ↔ Hookplane's `provider:model` form. herdctl and AgenTopology run
 * Claude and name bare models ("claude-sonnet-4-5", "sonnet"); Loom and Tailored AI already use a
 * provider prefix, of which Hookplane speaks only `openai:` and `anthropic:`.
 */
import { modelSchema } from "@/lib/core/agent/agent-spec";
import type { IssueSink } from "./field-reader";

/** The canonical model for a dialect's model name, or undefined (with a warning) when Hookplane cannot run it. */
export function canonicalModel(raw: string, path: string, sink: IssueSink, bareProvider = "anthropic"): string | undefined {
  const candidate = raw.includes(":") ? raw : `${bareProvider}:${raw}`;
  if (modelSchema.safeParse(candidate).success) return candidate;
  sink.warn(path, `model "${raw}" has no Hookplane provider (openai:, anthropic: or scripted); the agent uses the default model`);
  return undefined;
}

/** The bare model name for a dialect that runs only `provider`'s models, or undefined when it is another provider's. */
export function bareModel(model: string, provider = "anthropic"): string | undefined {
  return model.startsWith(`${provider}:`) ? model.slice(provider.length + 1) : undefined;
}
