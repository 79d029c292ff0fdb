/**
 * Picks the provider for an agent's model string: "scripted", "openai:<model>", "anthropic:<model>".
 */
import type { ScriptTurn } from "@/lib/agents/agent-spec";
import { createAnthropicProvider } from "./anthropic-provider";
import type { ModelProvider } from "./model-provider";
import { createOpenAIProvider } from "./openai-provider";
import { createScriptedProvider } from "./scripted-provider";

export interface CreateProviderOptions {
  /** The agent's script, for "scripted". */
  script?: ScriptTurn[];
  /** Where keys and base URLs come from; defaults to process.env. */
  env?: Record<string, string | undefined>;
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

export function createProvider(model: string, options: CreateProviderOptions = {}): ModelProvider {
  const env = options.env ?? process.env;
  if (model === "scripted") return createScriptedProvider(options.script);
  if (model.startsWith("openai:") && model.length > "openai:".length) {
    return createOpenAIProvider({
      apiKey: env.OPENAI_API_KEY,
      baseURL: options.baseURL ?? env.OPENAI_BASE_URL,
      maxRetries: options.maxRetries,
      timeoutMs: options.timeoutMs,
    });
  }
  if (model.startsWith("anthropic:") && model.length > "anthropic:".length) {
    return createAnthropicProvider({
      apiKey: env.ANTHROPIC_API_KEY,
      baseURL: options.baseURL ?? env.ANTHROPIC_BASE_URL,
      maxRetries: options.maxRetries,
      timeoutMs: options.timeoutMs,
    });
  }
  throw new UnknownModelError(model);
}
