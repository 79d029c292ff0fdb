/**
 * `block`: deny with a reason, optionally only when `denyIf` matches the JSON of the tool input
 * (Loom's no-prod hook, Tailored AI's denyIf). The hot path of the runtime: no allocation per call
 * when the reason has no template, and usually no JSON either (see json-prefilter.ts).
 */
import { jsonNeedle } from "../json-prefilter";
import { compileLinearRegex, isLiteralPattern } from "../linear-regex";
import type { BlockAction } from "../spec";
import { renderTemplate } from "../template";
import { inlineAction, type ActionResult, type CompiledAction } from "./types";

export function compileBlock(action: BlockAction): CompiledAction {
  const denyIf = action.denyIf ? compileLinearRegex(action.denyIf) : undefined;
  // Text every match must contain: when the tool input has it in no string, no JSON is built.
  const needle = action.denyIf ? jsonNeedle(action.denyIf, isLiteralPattern(action.denyIf)) : undefined;
  const reasonText = action.reason ?? "Blocked by hook";
  const templated = reasonText.includes("{{");
  const blocked: ActionResult = { verdict: "block", reason: reasonText };
  const notMatched: ActionResult = { verdict: "allow", reason: `denyIf /${action.denyIf}/ did not match` };
  return inlineAction((run) => {
    if (denyIf) {
      if (needle !== undefined && !run.subjectMayContain(needle)) return notMatched;
      if (!denyIf.test(run.subjectJson())) return notMatched;
    }
    if (!templated) return blocked;
    return { verdict: "block", reason: renderTemplate(reasonText, run.templateVars(), run.context()) };
  });
}
