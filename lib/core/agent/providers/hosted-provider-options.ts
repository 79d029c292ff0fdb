/**
 * What the hosted providers (OpenAI, Anthropic) share: an API key and where and how to call,
 * read from `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL`.
 */

export type HostedProviderPrefix = "OPENAI" | "ANTHROPIC";

export interface HostedProviderOptions {
  apiKey?: string;
  baseURL?: string;
  /** The SDK retries 429/5xx itself; 0 in tests so a scripted failure is seen at once. */
  maxRetries?: number;
  timeoutMs?: number;
}

/** The options of a hosted provider from the environment; a `baseURL` given here wins over the env's. */
export function hostedProviderOptions(
  prefix: HostedProviderPrefix,
  env: Readonly<Record<string, string | undefined>>,
  overrides: Omit<HostedProviderOptions, "apiKey">,
): HostedProviderOptions {
  return {
    apiKey: env[`${prefix}_API_KEY`],
    baseURL: overrides.baseURL ?? env[`${prefix}_BASE_URL`],
    maxRetries: overrides.maxRetries,
    timeoutMs: overrides.timeoutMs,
  };
}

/** What either SDK's client takes of the options: the key (checked per call, as requireApiKey says), where, how long and how often to try. */
export function sdkClientOptions(options: HostedProviderOptions, prefix: HostedProviderPrefix) {
  return { apiKey: requireApiKey(options, prefix), baseURL: options.baseURL, maxRetries: options.maxRetries, timeout: options.timeoutMs };
}

/** The key is checked per call, not up front, so a missing key fails the run (recorded), not the worker. */
export function requireApiKey(options: HostedProviderOptions, prefix: HostedProviderPrefix): string {
  if (!options.apiKey) throw new Error(`${prefix}_API_KEY is not set`);
  return options.apiKey;
}
