/**
 * The detectors' names, apart from the detectors: the hook schema (which the browser's editor
 * loads too) names them without loading a parser.
 */
export const DETECTOR_NAMES = ["shell.destructive", "shell.discard", "secrets", "pii", "injection", "session"] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];
