/**
 * Hookplane's hook runtime: pure TypeScript, no Next, no database. The app wires the ports
 * (approvals, tools, secrets, ledger) and calls `dispatch` at each lifecycle moment.
 */
export * from "./events";
export * from "./spec";
export type { HookEvent, HookContext } from "./event";
export { buildHookContext, templateVarsOf } from "./event";
export type {
  ApprovalPort,
  ApprovalRequest,
  ApprovalDecision,
  OnTimeout,
  ToolPort,
  SecretPort,
  SecretValue,
  LedgerSink,
  HookLogger,
} from "./ports";
export { silentLogger } from "./ports";
export type { LedgerEntry, HookVerdict } from "./ledger";
export type { RuntimeHook, HookRuntimeOptions, DispatchOptions, DispatchResult } from "./runtime-types";
export { createHookRuntime, type HookRuntime } from "./runtime";
export { compileHooks, type CompiledHookSet } from "./compiled-hooks";
export { compileMatcher, compileGlobs } from "./matcher";
export { compileWhen } from "./when";
export { compileLinearRegex, regexError } from "./linear-regex";
export { renderTemplate, substituteSecrets } from "./template";
export { createRedactor } from "./redact";
export { readHookAnswer } from "./hook-output";
export { DEFAULT_TIMEOUT_MS } from "./executors";
export {
  defineHook,
  createCodeHookRegistry,
  loadCodeHooks,
  resolveCodeHookIds,
  runTransformHooks,
  runEventHooks,
  TRANSFORM_HOOK_TYPES,
  EVENT_HOOK_TYPES,
  CODE_HOOK_TYPES,
  type CodeHook,
  type CodeHookType,
  type TransformHookType,
  type EventHookType,
  type CodeHookContext,
  type CodeHookRegistry,
  type CodeHookSignatures,
} from "./code-hooks";
