/**
 * What a tool is, for the model and for `tool` hooks alike: one registry serves both, so a hook
 * sees exactly the tool an agent would.
 */
import type { ToolCallOptions } from "@/lib/core/hooks/ports";

/** How a hook calls a tool beyond its input: `env` carries template values into the shell. */
export type { ToolCallOptions };

/** What a model is told about a tool; `inputSchema` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The answer a tool gives. Expected failures (bad input, refused path, non-zero exit, HTTP error)
 * are results with `isError: true` so the model can react; only infrastructure failures throw.
 */
export interface ToolResult {
  output: string;
  isError: boolean;
}

export interface ToolRegistry {
  list(): ToolDefinition[];
  /** Never throws for an unknown tool or bad input; throws only when the tool's own infrastructure fails. */
  call(name: string, input: unknown, signal?: AbortSignal, options?: ToolCallOptions): Promise<ToolResult>;
  /**
   * Whether running this call again after a crash is harmless (it only reads). A call that started
   * and left no result is re-run only then; any other is reported as interrupted.
   */
  retrySafe(name: string, input: unknown): boolean;
}

export function toolError(output: string): ToolResult {
  return { output, isError: true };
}

export function toolOutput(output: string): ToolResult {
  return { output, isError: false };
}

/** One tool as the registry holds it: its input schema validates before `run` is called. */
export interface ToolImplementation<Input = unknown> {
  name: string;
  description: string;
  input: import("zod").ZodType<Input>;
  run(input: Input, signal: AbortSignal | undefined, options?: ToolCallOptions): Promise<ToolResult>;
  /** Declared by tools that only read (true, or per input); anything else is treated as a side effect. */
  retrySafe?: boolean | ((input: Input) => boolean);
}

/** Erases the input type so tools of different inputs fit in one list. */
export function defineTool<Input>(tool: ToolImplementation<Input>): ToolImplementation<unknown> {
  return tool as ToolImplementation<unknown>;
}
