/**
 * `when: detects(…)` in the runtime: the named (synchronous) detectors over what they read of the
 * event context, the first finding at medium confidence or more.
 */
import type { DetectCheck } from "@/lib/core/hooks/when";
import type { DetectorName } from "./detector-names";
import { eventTexts } from "./event-texts";
import { DETECTORS } from "./registry";

export const detectInContext: DetectCheck = (names: readonly DetectorName[], context) => {
  const type = typeof context.event === "string" ? context.event : "";
  const cwd = typeof context.cwd === "string" ? context.cwd : undefined;
  for (const name of names) {
    const detector = DETECTORS[name];
    for (const text of eventTexts(detector.reads, type, context)) {
      const found = detector.detect(text, { cwd });
      if (Array.isArray(found) && found.length > 0) return `${found[0].detector}/${found[0].rule}`;
    }
  }
  return undefined;
};
