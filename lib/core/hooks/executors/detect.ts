/**
 * `detect`: runs named detectors (lib/core/detectors) over what the call carries and acts on what
 * they find at or above `minConfidence`. Before a tool call (`tool.pre`): block it, have the agent
 * ask its user, or only record. After it (`tool.post`): redact what was found in the output before
 * the model sees it (every string of a structured output), or only record. On a prompt
 * (`user.prompt.submit`): block or record. Synchronous when every detector is; secretlint's API
 * makes the `secrets` detector, and so its hook, asynchronous.
 */
import { DETECTORS } from "@/lib/core/detectors/registry";
import { eventTexts } from "@/lib/core/detectors/event-texts";
import { SESSION_CALLS, SESSION_WINDOW_MS } from "@/lib/core/detectors/session/session-rules";
import { CONFIDENCE_RANK, type Detector, type DetectorContext, type Finding } from "@/lib/core/detectors/types";
import type { PastCall } from "../ports";
import { mapStrings } from "../json-strings";
import type { DetectAction } from "../spec";
import { inlineAction, timedAction, type ActionResult, type ActionRun, type CompiledAction } from "./types";

/** Findings listed in one reason at most; the rest are counted. */
const LISTED = 3;
/** An asynchronous detector's time when the hook sets none (secretlint reads 1 MB in ~15 ms). */
export const DETECT_TIMEOUT_MS = 2_000;

interface Looked {
  /** The texts looked at, each with its findings (above the threshold), for a redaction. */
  texts: { text: string; findings: Finding[] }[];
  looked: boolean;
}

export function compileDetect(action: DetectAction, timeoutMs: number | undefined): CompiledAction {
  const detectors = action.detectors.map((name) => DETECTORS[name]);
  const threshold = CONFIDENCE_RANK[action.minConfidence];
  const names = action.detectors.join(", ");
  const nothing: ActionResult = { verdict: "allow", reason: `${names}: nothing found` };
  const notApplicable: ActionResult = { verdict: "allow", reason: `${names}: nothing here to read (${detectors.map((d) => (d.reads === "shell-command" ? "no shell command" : d.reads === "session" ? "no tool call" : "no text")).join(", ")})` };

  const decide = (run: ActionRun, looked: Looked): ActionResult => {
    if (!looked.looked) return notApplicable;
    const findings = looked.texts.flatMap((t) => t.findings);
    if (findings.length === 0) return nothing;
    const listed = findings.slice(0, LISTED).map((f) => `${f.detector}/${f.rule}: ${f.reason}`);
    const more = findings.length > LISTED ? ` (and ${findings.length - LISTED} more)` : "";
    const found = `${action.reason ? `${action.reason}: ` : ""}${listed.join("; ")}${more}`;
    switch (action.verdict) {
      case "block":
        return { verdict: "block", reason: found };
      case "ask":
        return { verdict: "allow", reason: `asks the agent's user: ${found}`, askUser: { reason: found } };
      case "redact": {
        const redacted = new Map(looked.texts.filter((t) => t.findings.length > 0).map((t) => [t.text, redact(t.text, t.findings)]));
        const output = mapStrings((run.event.data as { output?: unknown }).output, (text) => redacted.get(text) ?? text);
        return { verdict: "allow", reason: `redacted: ${found}`, modify: { output, redacted: true } };
      }
      default:
        return { verdict: "allow", reason: `recorded: ${found}` };
    }
  };

  const look = (run: ActionRun, history?: readonly PastCall[]): Looked | Promise<Looked> => {
    const pending: Promise<unknown>[] = [];
    const looked: Looked = { texts: [], looked: false };
    const data = run.event.data as Record<string, unknown>;
    const context: DetectorContext = {
      cwd: stringField(data, "cwd"),
      parsed: new Map(),
      ...(history && { call: { toolName: String(data.toolName ?? ""), toolInput: data.toolInput }, history, hosts: action.hosts, deletesPerMinute: action.deletesPerMinute, now: run.options.now() }),
    };
    for (const detector of detectors) {
      for (const text of textsFor(detector, run)) {
        looked.looked = true;
        const entry = { text, findings: [] as Finding[] };
        looked.texts.push(entry);
        const keep = (found: Finding[]) => entry.findings.push(...found.filter((f) => CONFIDENCE_RANK[f.confidence] >= threshold));
        const result = detector.detect(text, context);
        if (Array.isArray(result)) keep(result);
        else pending.push(result.then(keep));
      }
    }
    return pending.length === 0 ? looked : Promise.all(pending).then(() => looked);
  };

  const readsSession = detectors.some((d) => d.reads === "session");
  if (readsSession || detectors.some((d) => d.async)) {
    return timedAction(timeoutMs ?? DETECT_TIMEOUT_MS, async (run, signal) => {
      let history: readonly PastCall[] | undefined;
      if (readsSession && run.event.type === "tool.pre") {
        if (!run.options.history) return { failure: "session rules need the session's history, which this runtime does not read" };
        const now = run.options.now();
        history = await run.options.history.recentCalls({ runId: run.event.runId, sinceMs: now - SESSION_WINDOW_MS, limit: SESSION_CALLS }, signal);
      }
      return decide(run, await look(run, history));
    });
  }
  return inlineAction((run) => decide(run, look(run) as Looked));
}

function textsFor(detector: Detector, run: ActionRun): string[] {
  return eventTexts(detector.reads, run.event.type, run.event.data as Record<string, unknown>, () => run.subjectJson());
}

function stringField(data: unknown, key: string): string | undefined {
  const value = (data as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/** Each found range replaced by `[REDACTED <detector>/<rule>]`, overlapping ranges once. */
function redact(text: string, findings: Finding[]): string {
  const ranges = findings.filter((f) => f.range).sort((a, b) => a.range![0] - b.range![0]);
  let out = "";
  let at = 0;
  for (const f of ranges) {
    const [start, end] = f.range!;
    if (end <= at) continue;
    out += text.slice(at, Math.max(at, start)) + `[REDACTED ${f.detector}/${f.rule}]`;
    at = end;
  }
  return out + text.slice(at);
}
