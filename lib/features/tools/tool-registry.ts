/**
 * The one tool registry: agents call it through the loop and `tool` hooks call it through the hook
 * runtime, so both see the same tools with the same confinement.
 */
import { z } from "zod";
import { serverShellPolicy, type ShellPolicy } from "@/lib/platform/security/code-execution";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import { listFilesTool, readFileTool, writeFileTool } from "./file-tools";
import type { OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import { httpRequestTool } from "./http-request-tool";
import type { MemoryStore } from "./memory-store";
import { memoryTool } from "./memory-tool";
import { shellTool } from "./shell-tool";
import { toolError, type ToolDefinition, type ToolImplementation, type ToolRegistry } from "@/lib/core/agent/tool-types";

export interface ToolRegistryOptions {
  /** The run's workspace folder; shell runs there and file tools cannot leave it. */
  workspaceDir: string;
  /** Without a store the `memory` tool is not offered. */
  memory?: MemoryStore;
  /** Where http_request may go; default the operator's allow-list (server-outbound.ts). */
  outbound?: OutboundPolicy;
  /** Older switch: true lets http_request reach every private host (the allow-list `*`). */
  allowPrivateNetwork?: boolean;
  shellTimeoutMs?: number;
  httpTimeoutMs?: number;
  /** Byte cap of every tool output. */
  outputCap?: number;
  /** Environment of shell commands; see ShellToolOptions.env for the default. */
  shellEnv?: Record<string, string | undefined>;
  /**
   * Whether and how `shell` runs. Default: the server's policy (refused unless
   * HOOKPLANE_ALLOW_CODE_EXECUTION is on, then sandboxed), so no caller gets a shell by forgetting.
   */
  shell?: ShellPolicy;
}

export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
export const DEFAULT_OUTPUT_CAP = 100_000;

/**
 * Converted once per schema: every run builds its registry, and the built-in tools share their
 * schemas (module-level), so this is not redone per run. Callers never change the result.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let found = jsonSchemas.get(schema);
  if (!found) {
    // "input" so fields with defaults are optional for the model.
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
    found = rest;
    jsonSchemas.set(schema, found);
  }
  return found;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "input"}: ${i.message}`).join("; ");
}

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const outputCap = options.outputCap ?? DEFAULT_OUTPUT_CAP;
  const shell = options.shell ?? serverShellPolicy();
  try {
    shell.prepareWorkspace?.(options.workspaceDir);
  } catch (error) {
    // No workspace yet (a registry built before its run made one): the first step gives it.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const tools: ToolImplementation[] = [
    shellTool({
      workspaceDir: options.workspaceDir,
      timeoutMs: options.shellTimeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
      outputCap,
      env: options.shellEnv,
      launcher: shell.launcher,
      refusal: shell.refusal,
    }),
    readFileTool(options.workspaceDir, outputCap),
    writeFileTool(options.workspaceDir),
    listFilesTool(options.workspaceDir, outputCap),
    httpRequestTool({
      outbound: outboundOf(options),
      timeoutMs: options.httpTimeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS,
      outputCap,
    }),
  ];
  if (options.memory) tools.push(memoryTool(options.memory, outputCap));
  return registryOf(tools);
}

function outboundOf(options: ToolRegistryOptions): OutboundPolicy {
  const policy = options.outbound ?? serverOutboundConfig().policy;
  return options.allowPrivateNetwork ? { ...policy, allowPrivateHosts: [...policy.allowPrivateHosts, "*"] } : policy;
}

/** A registry over any list of tools; tests and callers with extra tools build theirs with it. */
export function registryOf(tools: ToolImplementation[]): ToolRegistry {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const definitions: ToolDefinition[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: jsonSchemaOf(t.input),
  }));
  return {
    list: () => definitions.map((d) => ({ ...d })),
    async call(name, input, signal, options) {
      const tool = byName.get(name);
      if (!tool) return toolError(`unknown tool "${name}" (available: ${[...byName.keys()].join(", ")})`);
      const parsed = tool.input.safeParse(input ?? {});
      if (!parsed.success) return toolError(`invalid input for ${name}: ${describeIssues(parsed.error)}`);
      return tool.run(parsed.data, signal, options);
    },
    retrySafe(name, input) {
      const declared = byName.get(name)?.retrySafe;
      if (typeof declared !== "function") return declared === true;
      const parsed = byName.get(name)!.input.safeParse(input ?? {});
      return parsed.success && declared(parsed.data);
    },
  };
}

/**
 * The registry with `names` also safe to retry (an agent's `retryTools`): the operator vouches that
 * running them twice is harmless, so hook `tool` actions re-run them after a crash like the loop does.
 */
export function withRetryTools(registry: ToolRegistry, names: readonly string[] | undefined): ToolRegistry {
  if (!names || names.length === 0) return registry;
  const extra = new Set(names);
  return { ...registry, retrySafe: (name, input) => extra.has(name) || registry.retrySafe(name, input) };
}
