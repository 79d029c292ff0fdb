/**
 * The detectors' names, apart from the detectors: the hook schema (which the browser's editor
 * loads too) names them without loading a parser.
 */
export const DETECTOR_NAMES = ["shell.destructive", "shell.discard", "secrets", "pii", "injection", "session"] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

/**
 * Detectors a `when` condition cannot name: secrets reads through secretlint's asynchronous API and
 * session rules read the session's history, while a condition decides at once. A detect hook can.
 */
export const NOT_IN_WHEN: ReadonlySet<DetectorName> = new Set(["secrets", "session"]);

/**
 * What each detector reads (its `reads`, kept here so the schema can judge a hook without loading
 * the detectors; a test holds the two equal): a shell command runs only in a call before it runs,
 * session rules read that call and the session's history, the others read any text.
 */
export const DETECTOR_READS: Record<DetectorName, "shell-command" | "text" | "session"> = {
  "shell.destructive": "shell-command",
  "shell.discard": "shell-command",
  secrets: "text",
  pii: "text",
  injection: "text",
  session: "session",
};

/**
 * The confidence a finding has, the default threshold first (types.ts ranks them). `low`: a shape
 * that look-alikes in a developer's text share (nine bare digits, a national phone layout); no hook
 * acts on it unless its minConfidence says so.
 */
export const CONFIDENCES = ["medium", "high", "low"] as const;
