/**
 * The detectors a hook can name, by name. Each is documented by its rules (docs/detectors.md) and
 * versioned, so a ledger row says which version decided.
 */
import { injectedInstructions } from "./injection/injected-instructions";
import { personalData } from "./pii/personal-data";
import { sessionRules } from "./session/session-rules";
import { secrets } from "./secrets/secrets";
import { bashParserReady } from "./shell/bash-parser";
import { destructiveShell, discardShell } from "./shell/destructive-shell";
import type { DetectorName } from "./detector-names";
import type { Detector } from "./types";

export const DETECTORS: Record<DetectorName, Detector> = {
  "shell.destructive": destructiveShell,
  "shell.discard": discardShell,
  secrets,
  pii: personalData,
  injection: injectedInstructions,
  session: sessionRules,
};

/**
 * Resolves once every detector can run (the shell parser's WebAssembly is loaded). A process awaits
 * it before it serves; a detector asked earlier throws, and its hook's onFailure decides.
 */
export function detectorsReady(): Promise<void> {
  return bashParserReady();
}
