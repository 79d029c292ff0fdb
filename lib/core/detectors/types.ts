/**
 * A detector reads what a hook is about (a shell command, a tool's input or output) and names what
 * it finds, each finding with the rule that found it, a confidence and a reason that quotes the part
 * it is about. Detectors are pure and synchronous: they run in the hook path of every tool call.
 */
export type Confidence = "high" | "medium";

export interface Finding {
  /** The detector's name, e.g. `shell.destructive`. */
  detector: string;
  /** Which of the detector's documented rules. */
  rule: string;
  confidence: Confidence;
  /** Readable, and names the part of the input it is about. */
  reason: string;
}

export interface DetectorContext {
  /** The folder the agent works in (the session's cwd), when the event says it. */
  cwd?: string;
}

export interface DetectorRule {
  rule: string;
  /** What it finds, for the documentation and the hook editor. */
  finds: string;
}

export interface Detector {
  name: string;
  /** Bumped when what it finds changes, so a ledger row says which version decided. */
  version: number;
  rules: readonly DetectorRule[];
  detect(text: string, context: DetectorContext): Finding[];
}

export const CONFIDENCE_RANK: Record<Confidence, number> = { medium: 1, high: 2 };
