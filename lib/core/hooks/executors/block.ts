/**
 * `block`: deny with a reason, optionally only when `denyIf` matches the JSON of the tool input
 * (Loom's no-prod hook, Tailored AI's denyIf), or when the detectors it names find something in the
 * call as a detect hook reads it (`denyIf: {detects: [...]}`). The hot path of the runtime: no
 * allocation per call when the reason has no template, and usually no JSON either (see
 * json-prefilter.ts).
 */
import { jsonNeedle } from "../json-prefilter";
import { compileLinearRegex, isLiteralPattern } from "../linear-regex";
import { isDenyIfDetects, type BlockAction, type DenyIfDetects } from "../spec";
import { renderTemplate } from "../template";
import { compileScan, listFindings, scanningAction } from "./detector-scan";
import { inlineAction, type ActionResult, type CompiledAction } from "./types";

export function compileBlock(action: BlockAction, hookTimeoutMs?: number): CompiledAction {
  if (isDenyIfDetects(action.denyIf)) return compileBlockOnFinding(action, action.denyIf, hookTimeoutMs);
  const pattern = action.denyIf;
  const denyIf = pattern ? compileLinearRegex(pattern) : undefined;
  // Text every match must contain: when the tool input has it in no string, no JSON is built.
  const needle = pattern ? jsonNeedle(pattern, isLiteralPattern(pattern)) : undefined;
  const reasonText = action.reason ?? "Blocked by hook";
  const templated = reasonText.includes("{{");
  const blocked: ActionResult = { verdict: "block", reason: reasonText };
  const notMatched: ActionResult = { verdict: "allow", reason: `denyIf /${pattern}/ did not match` };
  return inlineAction((run) => {
    if (denyIf) {
      if (needle !== undefined && !run.subjectMayContain(needle)) return notMatched;
      if (!denyIf.test(run.subjectJson())) return notMatched;
    }
    if (!templated) return blocked;
    return { verdict: "block", reason: renderTemplate(reasonText, run.templateVars(), run.context()) };
  });
}

/**
 * The block applies when a named detector finds something; its reason is the hook's, then the
 * findings (`detector/rule: what`), so the agent and the ledger row say what was found.
 */
function compileBlockOnFinding(action: BlockAction, denyIf: DenyIfDetects, hookTimeoutMs: number | undefined): CompiledAction {
  const scan = compileScan(denyIf.detects, denyIf.minConfidence);
  const reasonText = action.reason ?? "Blocked by hook";
  return scanningAction(scan, `denyIf detects(${scan.names})`, hookTimeoutMs, (run, findings) => {
    const reason = reasonText.includes("{{") ? renderTemplate(reasonText, run.templateVars(), run.context()) : reasonText;
    return { verdict: "block", reason: `${reason}: ${listFindings(findings)}` };
  });
}
