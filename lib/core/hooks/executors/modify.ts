/**
 * `modify`: rewrites a tool call in the open. On tool.pre its `input` merge patch (RFC 7396) makes
 * the call's new input, which the hooks after it, the approver and the tool see; on tool.post its
 * `output` replaces the tool's output, or its `redact` patterns (RE2, linear time) replace each
 * match with `replacement`, in the output's text or in every string of a structured output, before
 * the model sees it. The runtime applies the change (not in shadow mode) and records it.
 */
import { RE2JS } from "re2js";
import { mapStrings } from "../json-strings";
import { applyMergePatch, isPlainObject } from "../merge-patch";
import type { ModifyAction } from "../spec";
import { inlineAction, type ActionResult, type CompiledAction } from "./types";

const DEFAULT_REPLACEMENT = "[REDACTED]";

export function compileModify(action: ModifyAction): CompiledAction {
  const patterns = action.redact?.map((source) => RE2JS.compile(source));
  const replacement = RE2JS.quoteReplacement(action.replacement ?? DEFAULT_REPLACEMENT);
  const said = action.reason ? `: ${action.reason}` : "";
  return inlineAction((run): ActionResult => {
    const data = run.event.data;
    if (action.input !== undefined) {
      const next = applyMergePatch(data.toolInput, action.input);
      if (!isPlainObject(next)) return { verdict: "allow", reason: "the patch did not leave an object" };
      return { verdict: "allow", reason: `rewrote the tool input (${Object.keys(action.input).join(", ")})${said}`, modify: { input: next } };
    }
    if (action.output !== undefined) return { verdict: "allow", reason: `replaced the tool output${said}`, modify: { output: action.output } };
    if (!patterns) return { verdict: "allow" };
    let count = 0;
    const redact = (text: string) =>
      patterns.reduce((current, re) => {
        const matcher = re.matcher(current);
        const replaced = matcher.replaceAll(replacement);
        if (replaced !== current) count++;
        return replaced;
      }, text);
    const output = mapStrings(data.output, redact);
    if (count === 0) return { verdict: "allow", reason: "redact: nothing in the output matched" };
    return { verdict: "allow", reason: `redacted the tool output${said}`, modify: { output, redacted: true } };
  });
}
