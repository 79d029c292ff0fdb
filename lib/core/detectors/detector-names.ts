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
