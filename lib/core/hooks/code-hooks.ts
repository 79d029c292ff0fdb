/**
 * Code hooks, Standard Agents' `defineHook({type, id, execute})`: TypeScript or JavaScript modules
 * the operator installs in `HOOKPLANE_HOOKS_DIR`. Only code installed by the operator may transform
 * data (messages, tool results); a profile from the browser may observe, guard and ask, never
 * silently rewrite. A throwing or hanging hook is logged and the data it was given is kept.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger, type HookLogger } from "./ports";

export const TRANSFORM_HOOK_TYPES = [
  "filter_messages",
  "prefilter_llm_history",
  "before_create_message",
  "before_update_message",
  "before_store_tool_result",
  "after_tool_call_success",
  "after_tool_call_failure",
] as const;
export const EVENT_HOOK_TYPES = [
  "after_create_message",
  "after_update_message",
  "after_thread_created",
  "after_subagent_created",
  "after_system_message",
] as const;
export type TransformHookType = (typeof TRANSFORM_HOOK_TYPES)[number];
export type EventHookType = (typeof EVENT_HOOK_TYPES)[number];
export type CodeHookType = TransformHookType | EventHookType;
export const CODE_HOOK_TYPES: readonly CodeHookType[] = [...TRANSFORM_HOOK_TYPES, ...EVENT_HOOK_TYPES];

/** "Current execution context": what the run knows; hooks must treat it as read-only. */
export interface CodeHookContext {
  runId?: string;
  agentName?: string;
  threadId?: string;
  [key: string]: unknown;
}

export type Message = Record<string, unknown>;
export type ToolCall = Record<string, unknown>;
export type ToolResult = Record<string, unknown>;
type Awaitable<T> = T | Promise<T>;
/** What an event hook may return when a spec's `code` action calls it: a decision like a command's. */
export type CodeHookDecision = Record<string, unknown> | void;

export interface CodeHookSignatures {
  filter_messages: (ctx: CodeHookContext, messages: Message[]) => Awaitable<Message[]>;
  prefilter_llm_history: (ctx: CodeHookContext, messages: Message[]) => Awaitable<Message[]>;
  before_create_message: (ctx: CodeHookContext, message: Message) => Awaitable<Message>;
  before_update_message: (ctx: CodeHookContext, messageId: string, updates: Message) => Awaitable<Message>;
  before_store_tool_result: (ctx: CodeHookContext, toolCall: ToolCall, result: ToolResult) => Awaitable<ToolResult>;
  after_tool_call_success: (ctx: CodeHookContext, toolCall: ToolCall, result: ToolResult) => Awaitable<ToolResult | null>;
  after_tool_call_failure: (ctx: CodeHookContext, toolCall: ToolCall, result: ToolResult) => Awaitable<ToolResult | null>;
  after_create_message: (ctx: CodeHookContext, message: Message) => Awaitable<CodeHookDecision>;
  after_update_message: (ctx: CodeHookContext, message: Message) => Awaitable<CodeHookDecision>;
  after_thread_created: (ctx: CodeHookContext, thread: Record<string, unknown>) => Awaitable<CodeHookDecision>;
  after_subagent_created: (ctx: CodeHookContext, subagent: Record<string, unknown>) => Awaitable<CodeHookDecision>;
  after_system_message: (ctx: CodeHookContext, message: Message) => Awaitable<CodeHookDecision>;
}

export interface CodeHook<T extends CodeHookType = CodeHookType> {
  type: T;
  id: string;
  execute: CodeHookSignatures[T];
}

/** The data a transform hook receives last and returns. */
export type TransformData<T extends TransformHookType> = Parameters<CodeHookSignatures[T]> extends [unknown, ...infer _, infer D]
  ? D
  : never;
/** The argument between ctx and data (message id, tool call), for the types that have one. */
export type TransformSubject<T extends TransformHookType> = Parameters<CodeHookSignatures[T]> extends [unknown, infer S, unknown]
  ? S
  : undefined;

const HOOK_ID = /^[a-z][a-z0-9_]*$/;

export function defineHook<T extends CodeHookType>(hook: CodeHook<T>): CodeHook<T> {
  const problem = codeHookProblem(hook);
  if (problem) throw new Error(problem);
  return Object.freeze({ ...hook });
}

function codeHookProblem(value: unknown): string | undefined {
  if (!value || typeof value !== "object") return "a code hook module must default-export defineHook({type, id, execute})";
  const hook = value as Partial<CodeHook>;
  if (typeof hook.id !== "string" || !HOOK_ID.test(hook.id)) {
    return `code hook id must be snake_case (lowercase letters, digits, "_", starting with a letter), got ${JSON.stringify(hook.id)}`;
  }
  if (!CODE_HOOK_TYPES.includes(hook.type as CodeHookType)) {
    return `code hook ${hook.id}: unknown type ${JSON.stringify(hook.type)} (known: ${CODE_HOOK_TYPES.join(", ")})`;
  }
  if (typeof hook.execute !== "function") return `code hook ${hook.id}: execute must be a function`;
  return undefined;
}

export interface CodeHookRegistry {
  get(id: string): CodeHook | undefined;
  ids(): string[];
}

export function createCodeHookRegistry(hooks: readonly CodeHook[]): CodeHookRegistry {
  const byId = new Map<string, CodeHook>();
  for (const hook of hooks) {
    if (byId.has(hook.id)) throw new Error(`duplicate code hook id ${hook.id}`);
    byId.set(hook.id, hook);
  }
  return { get: (id) => byId.get(id), ids: () => [...byId.keys()] };
}

export interface CodeHookLoadError {
  file: string;
  message: string;
}

const LOADABLE = /\.(m?js|ts)$/;
const NOT_A_HOOK = /(\.d\.ts|\.test\.ts|\.spec\.ts)$/;

type TsImport = (specifier: string, parent: string) => Promise<unknown>;
let typeScriptImport: Promise<TsImport> | undefined;

/**
 * The server runs as compiled JavaScript; an operator's hook written in TypeScript is imported
 * through tsx (whatever module system its folder implies), loaded only when such a module exists.
 */
async function importModule(url: string): Promise<{ default?: unknown }> {
  if (!url.endsWith(".ts")) return (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url)) as { default?: unknown };
  // Never bundled: Next must not trace tsx and esbuild's binary.
  const loader = "tsx/esm/api";
  typeScriptImport ??= (import(/* webpackIgnore: true */ /* turbopackIgnore: true */ loader) as Promise<{ tsImport: TsImport }>).then((m) => m.tsImport);
  const mod = (await (await typeScriptImport)(url, import.meta.url)) as { default?: unknown };
  // A module in a folder without "type": "module" is compiled as CommonJS: its `export default`
  // arrives one level down (module.exports.default).
  const inner = mod.default as { default?: unknown; id?: unknown } | undefined;
  return inner && typeof inner === "object" && inner.id === undefined && "default" in inner ? { default: inner.default } : mod;
}

/**
 * Imports every .js/.mjs/.ts module of the operator's hooks folder (not recursive; file names do
 * not matter, the id does). A broken module is reported and left out; the others still load.
 */
export async function loadCodeHooks(dir: string): Promise<{ registry: CodeHookRegistry; errors: CodeHookLoadError[] }> {
  const errors: CodeHookLoadError[] = [];
  const hooks = new Map<string, CodeHook>();
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => LOADABLE.test(f) && !NOT_A_HOOK.test(f)).sort();
  } catch (error) {
    return { registry: createCodeHookRegistry([]), errors: [{ file: dir, message: (error as Error).message }] };
  }
  for (const file of files) {
    const full = path.join(dir, file);
    try {
      const mod = await importModule(pathToFileURL(full).href);
      const problem = codeHookProblem(mod.default);
      if (problem) throw new Error(problem);
      const hook = mod.default as CodeHook;
      if (hooks.has(hook.id)) throw new Error(`duplicate code hook id ${hook.id}`);
      hooks.set(hook.id, hook);
    } catch (error) {
      errors.push({ file, message: (error as Error).message });
    }
  }
  return { registry: createCodeHookRegistry([...hooks.values()]), errors };
}

/**
 * Standard Agents' scoping: if the prompt declares hooks, only those run; otherwise the agent's;
 * if neither declares any, none. An empty prompt list is a declaration ("no hooks here").
 */
export function resolveCodeHookIds(declared: { prompt?: readonly string[]; agent?: readonly string[] }): readonly string[] {
  return declared.prompt ?? declared.agent ?? [];
}

export interface CodeHookRunOptions {
  logger?: HookLogger;
  /** A hook slower than this is treated like a throw (default 5 s). */
  timeoutMs?: number;
}

export interface CodeHookError {
  hookId: string;
  message: string;
}

/**
 * Runs the transform hooks of `type` among `ids`, in that order, each receiving the previous one's
 * result. Unknown ids and hooks of another type are skipped (with a warning for unknown ids).
 */
export async function runTransformHooks<T extends TransformHookType>(
  registry: CodeHookRegistry,
  type: T,
  ids: readonly string[],
  data: TransformData<T>,
  ctx: CodeHookContext,
  subject?: TransformSubject<T>,
  options: CodeHookRunOptions = {},
): Promise<{ data: TransformData<T>; errors: CodeHookError[] }> {
  const logger = options.logger ?? silentLogger;
  const errors: CodeHookError[] = [];
  const takesSubject = type === "before_update_message" || type === "before_store_tool_result" || type.startsWith("after_tool_call_");
  let current = data;
  for (const hook of hooksOfType(registry, type, ids, logger)) {
    const execute = hook.execute as (...args: unknown[]) => unknown;
    try {
      const args = takesSubject ? [ctx, subject, current] : [ctx, current];
      const next = await withTimeout(() => execute(...args), options.timeoutMs ?? 5000);
      // undefined means "nothing to change"; null is meaningful (after_tool_call_*: remove the result).
      if (next !== undefined) current = next as TransformData<T>;
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      errors.push({ hookId: hook.id, message });
      logger.error(`code hook ${hook.id} (${type}) threw; keeping the data it was given`, { error: message });
    }
  }
  return { data: current, errors };
}

/** Runs event hooks (fire and observe); errors are logged, never thrown. */
export async function runEventHooks<T extends EventHookType>(
  registry: CodeHookRegistry,
  type: T,
  ids: readonly string[],
  ctx: CodeHookContext,
  payload: Parameters<CodeHookSignatures[T]>[1],
  options: CodeHookRunOptions = {},
): Promise<{ errors: CodeHookError[] }> {
  const logger = options.logger ?? silentLogger;
  const errors: CodeHookError[] = [];
  for (const hook of hooksOfType(registry, type, ids, logger)) {
    try {
      await withTimeout(() => (hook.execute as (...args: unknown[]) => unknown)(ctx, payload), options.timeoutMs ?? 5000);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      errors.push({ hookId: hook.id, message });
      logger.error(`code hook ${hook.id} (${type}) threw`, { error: message });
    }
  }
  return { errors };
}

function hooksOfType(registry: CodeHookRegistry, type: CodeHookType, ids: readonly string[], logger: HookLogger): CodeHook[] {
  const out: CodeHook[] = [];
  for (const id of ids) {
    const hook = registry.get(id);
    if (!hook) logger.warn(`code hook ${id} is referenced but not installed`);
    else if (hook.type === type) out.push(hook);
  }
  return out;
}

/** Runs `fn`, rejecting after `ms`; the timer is always cleared. */
export async function withTimeout<T>(fn: () => T | Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(fn),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
