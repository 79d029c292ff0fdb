/**
 * What each bridged agent can do with a call Hookplane changed, read from its hook protocol as it
 * is today (docs/bridges/, "Changing a call"): run a tool with a rewritten input, show its model a
 * replaced output, ask its own user. A change the agent cannot apply never lets the call run
 * unmodified: the call is blocked with the reason. An output change cannot stop a call that
 * already ran, so an agent that cannot replace outputs has its call blocked before it runs when an
 * output-changing hook would apply to it.
 */
import { compileHook, type CompiledHook } from "@/lib/core/hooks/compiled-hooks";
import type { DispatchResult, RuntimeHook } from "@/lib/core/hooks/runtime-types";

export interface ModificationSupport {
  /** The agent as reasons name it ("Claude Code"). */
  agent: string;
  /**
   * It runs a tool call with the input Hookplane answers (tool.pre); `keys-kept`: only when no
   * key of the asked input is removed (Gemini CLI merges the answer over the asked arguments on
   * one of its paths, so a removed key would survive).
   */
  input: boolean | "keys-kept";
  /** It gives its model the output Hookplane answers instead of the tool's (tool.post). */
  output: boolean;
  /** It asks its own user before the call when Hookplane answers `ask`. */
  ask: boolean;
  /** Its permission request's answer can carry a rewritten input too (Claude Code's `decision.updatedInput`). */
  permissionInput?: boolean;
}

/** Where nothing is known: nothing applies (a generic runtime says what it applies in its request). */
export const APPLIES_NOTHING = (agent: string): ModificationSupport => ({ agent, input: false, output: false, ask: false });

/**
 * Per agent (`runs.source`). Claude Code: PreToolUse `updatedInput` with `permissionDecision`
 * allow or ask, PermissionRequest `decision.updatedInput`, PostToolUse `updatedToolOutput`
 * (2.1.332; `updatedMCPToolOutput` for MCP tools before). Codex 0.169 refuses `allow` and
 * `updatedInput` (0.171 takes `updatedInput` with allow, but its hooks say no version), `ask` and
 * `updatedMCPToolOutput` in every version. Gemini CLI 0.61: BeforeTool `hookSpecificOutput.tool_input`
 * (merged over the asked arguments on one path, so no key may be removed) and `decision: "ask"`;
 * AfterTool cannot replace the output. Copilot CLI 1.0.102: preToolUse `modifiedArgs` with an allow
 * (whether it merges or replaces is not told, so no key may be removed); no output change and no
 * ask verified. Cursor: not verified against its real CLI, so nothing is claimed and a change
 * blocks the call. Qwen Code 0.24.4 (through the Claude Code bridge): its PreToolUse reads only
 * deny, ask and additionalContext (firePreToolUseHook in its bundle), so an `updatedInput` is
 * dropped and the call would run as asked; its `ask` is a deny where it cannot prompt (headless).
 */
export const MODIFICATION_SUPPORT: Record<string, ModificationSupport> = {
  "claude-code": { agent: "Claude Code", input: true, output: true, ask: true, permissionInput: true },
  codex: APPLIES_NOTHING("Codex"),
  "gemini-cli": { agent: "Gemini CLI", input: "keys-kept", output: false, ask: true },
  copilot: { agent: "Copilot CLI", input: "keys-kept", output: false, ask: false },
  cursor: APPLIES_NOTHING("Cursor"),
  "qwen-code": APPLIES_NOTHING("Qwen Code"),
};

/** Why the agent cannot take this dispatch's answer as it is; undefined when it can. */
export function unappliedChange(event: string, result: DispatchResult, support: ModificationSupport, askedInput?: unknown, permissionRequest = false): string | undefined {
  if (result.verdict !== "allow") return undefined;
  const by = `hook ${(result.modifiedBy ?? []).join(", ")}`;
  if (permissionRequest && result.toolInput && support.input && !support.permissionInput) {
    return `${support.agent} cannot apply a rewritten input on a permission request (${by} changed it): blocked rather than run as asked`;
  }
  if (event === "tool.pre" && result.toolInput && !support.input) {
    return `${support.agent} cannot apply a rewritten input (${by} changed it): blocked rather than run as asked`;
  }
  if (event === "tool.pre" && result.toolInput && support.input === "keys-kept") {
    const removed = Object.keys(isRecord(askedInput) ? askedInput : {}).filter((key) => !(key in result.toolInput!));
    if (removed.length > 0) return `${support.agent} cannot remove ${removed.join(", ")} from a tool's input (${by} did): blocked rather than run as asked`;
  }
  if (event === "tool.pre" && result.askUser && !support.ask) {
    return `${support.agent} cannot ask its user (hook ${result.askUser.hookId}: ${result.askUser.reason}): blocked`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The enforce-mode hooks that would change this tool's output after it runs (by matcher; their
 * `when` cannot be judged before the output exists, so they count as matching).
 */
export function outputChangersFor(hooks: readonly RuntimeHook[], toolName: string): string[] {
  return outputChangersOf(hooks)
    .filter((h) => !h.matcher || h.matcher(toolName))
    .map((h) => h.id);
}

/**
 * A chain's output-changing hooks, found once per chain (cached by the list's identity, as the
 * compiled chain is): every allowed tool call of an agent that cannot replace outputs asks.
 * A matcher that does not compile has none here, so it counts as matching.
 */
const outputChangersCache = new WeakMap<readonly RuntimeHook[], CompiledHook[]>();
function outputChangersOf(hooks: readonly RuntimeHook[]): CompiledHook[] {
  let changers = outputChangersCache.get(hooks);
  if (!changers) {
    changers = hooks
      .filter(
        (h) =>
          h.event === "tool.post" &&
          ((h.action.type === "modify" && (h.action.output !== undefined || h.action.redact !== undefined)) || (h.action.type === "detect" && h.action.verdict === "redact")),
      )
      .map(compileHook)
      .filter((h) => h.enabled && !h.shadow);
    outputChangersCache.set(hooks, changers);
  }
  return changers;
}

/** The block before a call whose output a hook would change, on an agent that cannot show the change. */
export function outputChangeRefusal(hooks: readonly RuntimeHook[], toolName: unknown, support: ModificationSupport): string | undefined {
  if (support.output || typeof toolName !== "string") return undefined;
  const changers = outputChangersFor(hooks, toolName);
  if (changers.length === 0) return undefined;
  return `${support.agent} cannot replace a tool's output, and hook ${changers.join(", ")} would change what ${toolName} returns: blocked before it runs`;
}
