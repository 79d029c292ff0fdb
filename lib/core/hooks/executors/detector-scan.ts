/**
 * Named detectors run over some texts, findings below a confidence dropped: what a `detect` hook
 * does, and what a `denyIf` that names detectors does on `block` (over the call, as detect reads it)
 * and on `tool` (over the tool's output). Synchronous when every detector is; secretlint's API and
 * session rules (which read the session's history through a port) make it asynchronous, and then
 * it must be awaited inside a timed executor.
 */
import type { DetectorName } from "@/lib/core/detectors/detector-names";
import { eventTexts } from "@/lib/core/detectors/event-texts";
import { DETECTORS } from "@/lib/core/detectors/registry";
import { SESSION_CALLS, SESSION_WINDOW_MS } from "@/lib/core/detectors/session/session-rules";
import { CONFIDENCE_RANK, type Confidence, type Detector, type DetectorContext, type Finding } from "@/lib/core/detectors/types";
import type { PastCall } from "../ports";
import { inlineAction, timedAction, type ActionFailure, type ActionResult, type ActionRun, type CompiledAction } from "./types";

/** Findings listed in one reason at most; the rest are counted. */
const LISTED = 3;
/** An asynchronous detector's time when the hook sets none (secretlint reads 1 MB in ~15 ms). */
export const DETECT_TIMEOUT_MS = 2_000;

export interface Scanned {
  /** The texts looked at, each with its findings (above the threshold), for a redaction. */
  texts: { text: string; findings: Finding[] }[];
  /** False when no detector had anything to read. */
  looked: boolean;
}

export interface DetectorScan {
  names: string;
  /** Must be awaited (`scanAwaited`): an asynchronous detector, or session rules. */
  async: boolean;
  /** Synchronous scan over the event as the detect action reads it; only when `!async`. */
  scan(run: ActionRun): Scanned;
  /**
   * The same, awaited: reads the session's history first when session rules are named (tool.pre),
   * or fails when the runtime has no history to read. `texts` replaces what is read (a tool's output).
   */
  scanAwaited(run: ActionRun, signal: AbortSignal, texts?: (detector: Detector) => string[]): Promise<Scanned | ActionFailure>;
  /** "nothing here to read (no shell command, …)", by detector. */
  nothingToRead: string;
}

export function compileScan(names: readonly DetectorName[], minConfidence: Confidence, settings: { hosts?: readonly string[]; deletesPerMinute?: number } = {}): DetectorScan {
  const detectors = names.map((name) => DETECTORS[name]);
  const threshold = CONFIDENCE_RANK[minConfidence];
  const readsSession = detectors.some((d) => d.reads === "session");

  const look = (run: ActionRun, texts: (detector: Detector) => string[], history?: readonly PastCall[]): Scanned | Promise<Scanned> => {
    const pending: Promise<unknown>[] = [];
    const scanned: Scanned = { texts: [], looked: false };
    const data = run.event.data as Record<string, unknown>;
    const context: DetectorContext = {
      cwd: typeof data.cwd === "string" ? data.cwd : undefined,
      parsed: new Map(),
      ...(history && { call: { toolName: String(data.toolName ?? ""), toolInput: data.toolInput }, history, hosts: settings.hosts, deletesPerMinute: settings.deletesPerMinute, now: run.options.now() }),
    };
    for (const detector of detectors) {
      for (const text of texts(detector)) {
        scanned.looked = true;
        const entry = { text, findings: [] as Finding[] };
        scanned.texts.push(entry);
        const keep = (found: Finding[]) => entry.findings.push(...found.filter((f) => CONFIDENCE_RANK[f.confidence] >= threshold));
        const result = detector.detect(text, context);
        if (Array.isArray(result)) keep(result);
        else pending.push(result.then(keep));
      }
    }
    return pending.length === 0 ? scanned : Promise.all(pending).then(() => scanned);
  };
  const eventTextsOf = (run: ActionRun) => (detector: Detector) => eventTexts(detector.reads, run.event.type, run.event.data as Record<string, unknown>, () => run.subjectJson());

  return {
    names: names.join(", "),
    async: readsSession || detectors.some((d) => d.async),
    nothingToRead: `nothing here to read (${detectors.map((d) => (d.reads === "shell-command" ? "no shell command" : d.reads === "session" ? "no tool call" : "no text")).join(", ")})`,
    scan: (run) => {
      const scanned = look(run, eventTextsOf(run));
      if (scanned instanceof Promise) throw new Error("an asynchronous detector was run without being awaited");
      return scanned;
    },
    async scanAwaited(run, signal, texts) {
      let history: readonly PastCall[] | undefined;
      if (readsSession && run.event.type === "tool.pre" && !texts) {
        if (!run.options.history) return { failure: "session rules need the session's history, which this runtime does not read" };
        const now = run.options.now();
        history = await run.options.history.recentCalls({ runId: run.event.runId, sinceMs: now - SESSION_WINDOW_MS, limit: SESSION_CALLS }, signal);
      }
      return look(run, texts ?? eventTextsOf(run), history);
    },
  };
}

/**
 * A hook action that scans the event and decides on what was found: inline when every detector is
 * synchronous, else awaited within `timeoutMs` (2 s unless set; a timeout, or session rules without
 * a history to read, follows the hook's onFailure). Nothing to read, or nothing found, allows with
 * `label` saying so; findings above the threshold go to `onFindings`.
 */
export function scanningAction(
  scan: DetectorScan,
  label: string,
  timeoutMs: number | undefined,
  onFindings: (run: ActionRun, findings: Finding[], scanned: Scanned) => ActionResult,
): CompiledAction {
  const nothing: ActionResult = { verdict: "allow", reason: `${label}: nothing found` };
  const notApplicable: ActionResult = { verdict: "allow", reason: `${label}: ${scan.nothingToRead}` };
  const decide = (run: ActionRun, scanned: Scanned): ActionResult => {
    if (!scanned.looked) return notApplicable;
    const findings = scanned.texts.flatMap((t) => t.findings);
    return findings.length === 0 ? nothing : onFindings(run, findings, scanned);
  };
  if (scan.async) {
    return timedAction(timeoutMs ?? DETECT_TIMEOUT_MS, async (run, signal) => {
      const scanned = await scan.scanAwaited(run, signal);
      return "failure" in scanned ? scanned : decide(run, scanned);
    });
  }
  return inlineAction((run) => decide(run, scan.scan(run)));
}

/** Up to three findings as `detector/rule: reason`, `; `-joined, and how many more. */
export function listFindings(findings: readonly Finding[], where?: (finding: Finding) => string): string {
  const listed = findings.slice(0, LISTED).map((f) => `${f.detector}/${f.rule}${where ? ` ${where(f)}` : ""}: ${f.reason}`);
  const more = findings.length > LISTED ? ` (and ${findings.length - LISTED} more)` : "";
  return `${listed.join("; ")}${more}`;
}

/** Each found range replaced by `[REDACTED <detector>/<rule>]`, overlapping ranges once. */
export function redactFindings(text: string, findings: readonly Finding[]): string {
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
