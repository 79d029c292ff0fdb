/**
 * A detector reads what a hook is about (a shell command, a tool's input or output) and names what
 * it finds, each finding with the rule that found it, a confidence and a reason that quotes the part
 * it is about. Detectors are pure and synchronous: they run in the hook path of every tool call.
 */
import type { PastCall } from "@/lib/core/hooks/ports";
import type { ParsedShell } from "./shell/shell-script";
import type { CONFIDENCES } from "./detector-names";

/** How sure a finding is (detector-names.ts lists the three). */
export type Confidence = (typeof CONFIDENCES)[number];

export interface Finding {
  /** The detector's name, e.g. `shell.destructive`. */
  detector: string;
  /** Which of the detector's documented rules. */
  rule: string;
  confidence: Confidence;
  /** Readable, and names the part of the input it is about (a secret itself never: it is masked). */
  reason: string;
  /** Where in the text it was found, [start, end): what a redaction replaces. */
  range?: [number, number];
}

export interface DetectorContext {
  /** The folder the agent works in (the session's cwd), when the event says it. */
  cwd?: string;
  /** Session rules: the call being decided, and what the session called before (newest first). */
  call?: { toolName: string; toolInput: unknown };
  history?: readonly PastCall[];
  /** Session rules: hosts a session may still reach after reading a secret, and the deletes a minute it may make. */
  hosts?: readonly string[];
  deletesPerMinute?: number;
  /** Epoch milliseconds of the call (the runtime's clock). */
  now?: number;
  /** One dispatch's parsed commands, shared by its detectors (each command parsed once). */
  parsed?: Map<string, ParsedShell | undefined>;
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
  /**
   * What it reads: a shell command (the call's, when it runs one) or any text the call carries
   * (its input's JSON, its output, a prompt).
   */
  reads: "shell-command" | "text" | "session";
  /** Its `detect` returns a promise (secretlint's API is asynchronous). */
  async: boolean;
  /** Synchronous where it can be: an asynchronous detector makes its hook an asynchronous one. */
  detect(text: string, context: DetectorContext): Finding[] | Promise<Finding[]>;
}

export const CONFIDENCE_RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };
