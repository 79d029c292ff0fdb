/**
 * Picks the provider for an agent's model string: "scripted", "openai:<model>", "anthropic:<model>".
 */
import type { ScriptTurn } from "@/lib/core/agent/agent-spec";
import { createAnthropicProvider } from "./anthropic-provider";
import { hostedProviderOptions } from "./hosted-provider-options";
import type { ModelProvider } from "./model-provider";
import { createOpenAIProvider } from "./openai-provider";
import { createScriptedProvider } from "./scripted-provider";

export interface CreateProviderOptions {
  /** The agent's script, for "scripted". */
  script?: ScriptTurn[];
  /**
   * Where keys and base URLs come from (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY,
   * ANTHROPIC_BASE_URL): the caller's configuration; the core never reads the process's own.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL. */
  baseURL?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

export class UnknownModelError extends Error {
  constructor(model: string) {
    super(`unknown model "${model}": use "scripted", "openai:<model>" or "anthropic:<model>"`);
    this.name = "UnknownModelError";
  }
}

/** "openai:gpt-4o" names a model of "openai"; a bare "openai:" names none. */
function namesModel(model: string, prefix: string): boolean {
  return model.startsWith(`${prefix}:`) && model.length > prefix.length + 1;
}

export function createProvider(model: string, options: CreateProviderOptions = {}): ModelProvider {
  const env = options.env ?? {};
  if (model === "scripted") return createScriptedProvider(options.script);
  if (namesModel(model, "openai")) return createOpenAIProvider(hostedProviderOptions("OPENAI", env, options));
  if (namesModel(model, "anthropic")) return createAnthropicProvider(hostedProviderOptions("ANTHROPIC", env, options));
  throw new UnknownModelError(model);
}
