/**
 * A tool output a hook redacted is stored nowhere as the tool returned it: the record of the
 * tool.post (its event) keeps the redacted output instead, whether the redaction was enforced (the
 * model read it too) or in shadow mode (the model read the original, and the record still does not
 * keep it). The dispatch follows what the record may keep, hook by hook; the bridge and the agent
 * loop write the event with it (recordedToolPost), once, after the hooks ran.
 */

/** What the record of a tool.post keeps of its output after a redaction. */
export interface OutputRedaction {
  /** The output with every redaction of the chain in it. */
  output: unknown;
  /** An enforced hook redacted it: the model read a redacted output. False: only shadow hooks did. */
  applied: boolean;
}

/**
 * Kept instead when two hooks redacted different versions of the output (a shadow redaction, then
 * another hook's, both from the original): neither result has the other's redactions in it.
 */
export const WITHHELD_OUTPUT = "[REDACTED: hooks redacted different versions of this output; the record keeps none of it]";

/**
 * The redaction after one more hook changed the output from `shown` (the output that hook was
 * shown) to `changed`. A plain replacement (not a redaction) matters only after a redaction: the
 * model then reads the replacement, and the record follows it when it was made from what the
 * record keeps.
 */
export function nextRedaction(
  before: OutputRedaction | undefined,
  change: { shown: unknown; changed: unknown; redacts: boolean; applied: boolean },
): OutputRedaction | undefined {
  if (!change.redacts && (before === undefined || !change.applied)) return before;
  const follows = before === undefined || before.output === change.shown;
  return {
    output: follows ? change.changed : WITHHELD_OUTPUT,
    applied: (before?.applied ?? false) || (change.redacts && change.applied),
  };
}

/**
 * The tool.post as it is recorded: with the redacted output and `redacted: true` when a hook
 * redacted it, and `redactedInShadow: true` when only shadow hooks did (the model read the original).
 */
export function recordedToolPost<T extends Record<string, unknown>>(data: T, redaction: OutputRedaction | undefined): T {
  if (redaction === undefined) return data;
  return { ...data, output: redaction.output, redacted: true, ...(!redaction.applied && { redactedInShadow: true }) };
}
