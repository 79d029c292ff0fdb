/**
 * One place that maps an action type to its executor and documents each action's default timeout.
 * The effective timeout is the action's own `timeoutMs`, else the hook's, else this default.
 */
import { egressIssues } from "../secret-placement";
import type { HookAction, HookActionType } from "../spec";
import { compileAllow } from "./allow";
import { compileApprove } from "./approve";
import { compileLog, compileSaveJson } from "./audit";
import { compileBlock } from "./block";
import { compileCode } from "./code";
import { compileCommand } from "./command";
import { compileContext } from "./context";
import { compileDetect } from "./detect";
import { compileLimit } from "./limit";
import { compileAsk } from "./ask";
import { compileModify } from "./modify";
import { compileDiscord, compileSlack } from "./notify";
import { compileTool } from "./tool";
import type { CompiledAction } from "./types";
import { compileWebhook } from "./webhook";

export const DEFAULT_TIMEOUT_MS: Record<HookActionType, number | undefined> = {
  block: undefined, // in-process, synchronous: nothing to time (denyIf naming secrets or session: detect's 2 s)
  context: undefined,
  log: undefined,
  approve: 30 * 60 * 1000, // Loom's security.hitlTimeoutMs
  allow: undefined,
  command: 5_000, // Loom's command default (herdctl uses 30 s: its importer sets it)
  webhook: 10_000, // herdctl
  slack: 10_000,
  discord: 10_000,
  tool: 30_000,
  save_json: 5_000,
  code: 5_000,
  limit: 5_000, // one round trip to the counter
  modify: undefined, // in-process
  ask: undefined,
  detect: undefined, // in-process, synchronous
};

/** Throws with a readable message when the action cannot be compiled (bad regex, bad URL). */
export function compileAction(action: HookAction, hookTimeoutMs: number | undefined): CompiledAction {
  // The save-time rules again, for stored hooks saved before them (or written to the database
  // directly): such a hook fails under its onFailure when it fires, and nothing is sent.
  const issue = egressIssues(action)[0];
  if (issue) throw new Error(`action.${issue.path.join(".")}: ${issue.message}`);
  const own = (action as { timeoutMs?: number }).timeoutMs;
  const timeout = own ?? hookTimeoutMs ?? DEFAULT_TIMEOUT_MS[action.type] ?? 10_000;
  switch (action.type) {
    case "block":
      return compileBlock(action, hookTimeoutMs);
    case "approve":
      return compileApprove({ ...action, timeoutMs: action.timeoutMs ?? hookTimeoutMs ?? timeout });
    case "allow":
      return compileAllow(action);
    case "context":
      return compileContext(action);
    case "tool":
      return compileTool(action, timeout);
    case "command":
      return compileCommand(action, timeout);
    case "webhook":
      return compileWebhook(action, timeout);
    case "slack":
      return compileSlack(action, timeout);
    case "discord":
      return compileDiscord(action, timeout);
    case "limit":
      return compileLimit(action, timeout);
    case "log":
      return compileLog(action);
    case "save_json":
      return compileSaveJson(action, timeout);
    case "code":
      return compileCode(action, timeout);
    case "modify":
      return compileModify(action);
    case "ask":
      return compileAsk(action);
    case "detect":
      return compileDetect(action, own ?? hookTimeoutMs);
    default:
      throw new Error(`unknown action type ${JSON.stringify((action as { type?: unknown }).type)}`);
  }
}
