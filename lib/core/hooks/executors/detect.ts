/**
 * `detect`: runs named detectors (lib/core/detectors) over what the call carries and acts on what
 * they find at or above `minConfidence`: block the call, have the agent ask its user, or only
 * record the findings in the ledger row (the call goes on). Synchronous: detectors are pure.
 */
import { DETECTORS } from "@/lib/core/detectors/registry";
import { shellCommandOf } from "@/lib/core/detectors/shell/shell-command-of";
import { CONFIDENCE_RANK, type Finding } from "@/lib/core/detectors/types";
import type { DetectAction } from "../spec";
import type { ActionResult, CompiledAction } from "./types";

/** Findings listed in one reason at most; the rest are counted. */
const LISTED = 3;

export function compileDetect(action: DetectAction): CompiledAction {
  const detectors = action.detectors.map((name) => DETECTORS[name]);
  const threshold = CONFIDENCE_RANK[action.minConfidence];
  const nothing: ActionResult = { verdict: "allow", reason: `${action.detectors.join(", ")}: nothing found` };
  const notApplicable: ActionResult = { verdict: "allow", reason: `${action.detectors.join(", ")}: the call runs no shell command` };
  return {
    secretNames: [],
    executor: {
      async: false,
      run(run) {
        // tool.pre's payload; `cwd` is the session's folder where the agent sends it (Claude Code does).
        const data = run.event.data as { toolInput?: unknown; cwd?: unknown };
        const command = shellCommandOf(data.toolInput);
        if (command === undefined) return notApplicable;
        const cwd = typeof data.cwd === "string" ? data.cwd : undefined;
        const findings: Finding[] = [];
        for (const detector of detectors) for (const f of detector.detect(command, { cwd })) if (CONFIDENCE_RANK[f.confidence] >= threshold) findings.push(f);
        if (findings.length === 0) return nothing;
        const listed = findings.slice(0, LISTED).map((f) => `${f.detector}/${f.rule}: ${f.reason}`);
        const more = findings.length > LISTED ? ` (and ${findings.length - LISTED} more)` : "";
        const found = `${action.reason ? `${action.reason}: ` : ""}${listed.join("; ")}${more}`;
        if (action.verdict === "block") return { verdict: "block", reason: found };
        if (action.verdict === "ask") return { verdict: "allow", reason: `asks the agent's user: ${found}`, askUser: { reason: found } };
        return { verdict: "allow", reason: `recorded: ${found}` };
      },
    },
  };
}
