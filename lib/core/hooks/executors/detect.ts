/**
 * `detect`: runs named detectors (lib/core/detectors) over what the call carries and acts on what
 * they find at or above `minConfidence`. Before a tool call (`tool.pre`): block it, have the agent
 * ask its user, or only record. After it (`tool.post`): redact what was found in the output before
 * the model sees it (every string of a structured output), or only record. On a prompt
 * (`user.prompt.submit`): block or record. Synchronous when every detector is; secretlint's API
 * makes the `secrets` detector, and so its hook, asynchronous (detector-scan.ts).
 */
import { mapStrings } from "../json-strings";
import type { DetectAction } from "../spec";
import { compileScan, listFindings, redactFindings, scanningAction } from "./detector-scan";
import type { CompiledAction } from "./types";

export function compileDetect(action: DetectAction, timeoutMs: number | undefined): CompiledAction {
  const scan = compileScan(action.detectors, action.minConfidence, { hosts: action.hosts, deletesPerMinute: action.deletesPerMinute });
  return scanningAction(scan, scan.names, timeoutMs, (run, findings, scanned) => {
    const found = `${action.reason ? `${action.reason}: ` : ""}${listFindings(findings)}`;
    switch (action.verdict) {
      case "block":
        return { verdict: "block", reason: found };
      case "ask":
        return { verdict: "allow", reason: `asks the agent's user: ${found}`, askUser: { reason: found } };
      case "redact": {
        const redacted = new Map(scanned.texts.filter((t) => t.findings.length > 0).map((t) => [t.text, redactFindings(t.text, t.findings)]));
        const output = mapStrings((run.event.data as { output?: unknown }).output, (text) => redacted.get(text) ?? text);
        return { verdict: "allow", reason: `redacted: ${found}`, modify: { output, redacted: true } };
      }
      default:
        return { verdict: "allow", reason: `recorded: ${found}` };
    }
  });
}
