/**
 * A hook's change to a tool call (a modify hook, or an approver's edit): what its ledger row keeps
 * and what the rest of the chain sees. Apart from the dispatch because only modifying hooks reach it.
 */
import type { CompiledHook } from "./compiled-hooks";
import type { HookEvent } from "./event";
import type { ActionResult } from "./executors/types";
import type { LedgerEntry } from "./ledger";
import { hashedValue, ledgerValue, sha256Of } from "./modification-record";
import { nextRedaction, type OutputRedaction } from "./output-redaction";
import { capText } from "./redact";
import { REASON_CAP } from "./ledger-row";

/** The dispatch as a change to its call sees it (dispatch.ts's Dispatch is one). */
export interface ModifiableCall {
  readonly event: HookEvent;
  reminders: string[] | undefined;
  modifiedBy: string[] | undefined;
  setInput(input: Record<string, unknown>): void;
  setOutput(output: unknown): void;
  /** What the record of the tool.post keeps of its output, once a hook (enforced or shadow) redacted it. */
  redaction: OutputRedaction | undefined;
  subjectName(): string;
}

/**
 * A hook's change to the call: recorded on its row (before and after), and unless it is in
 * shadow mode, applied, so the rest of the chain and the caller see it. An input change counts
 * on tool.pre only and an output change on tool.post only; elsewhere it is recorded as ignored.
 */
export function modifyCall(call: ModifiableCall, hook: CompiledHook, entry: LedgerEntry, outcome: ActionResult): void {
  const { input, output, redacted } = outcome.modify!;
  const applied = !hook.shadow;
  const ignore = (why: string) => {
    entry.ignored = true;
    entry.reason = capText(`${entry.reason ?? "changed the call"} (${why}: not applied)`, REASON_CAP);
  };
  // Each change counts on its one event; on another it is recorded, as ignored.
  const countsOn = (event: "tool.pre" | "tool.post", change: string) => {
    if (call.event.type === event) return true;
    ignore(`${change} applies on ${event}, not ${call.event.type}`);
    return false;
  };
  if (input !== undefined && countsOn("tool.pre", "an input change")) {
    const proposed = call.event.data.toolInput;
    entry.modification = {
      kind: "input",
      proposed: ledgerValue(proposed),
      ...(outcome.approval && { approved: ledgerValue(input) }),
      effective: ledgerValue(input),
      applied,
    };
    if (applied) {
      call.setInput(input);
      (call.reminders ??= []).push(`hook ${hook.id} changed the input of ${call.subjectName()}: it runs with ${capText(JSON.stringify(input), 2000)}`);
    }
  }
  if (output !== undefined && countsOn("tool.post", "an output change")) {
    const original = call.event.data.output;
    // Once anything redacted the output, the row keeps only a hash of what this hook was shown:
    // after a shadow redaction, that is still the original.
    const hashed = redacted === true || call.redaction !== undefined;
    call.redaction = nextRedaction(call.redaction, { shown: original, changed: output, redacts: redacted === true, applied });
    entry.modification = {
      kind: "output",
      ...(hashed ? { originalSha256: sha256Of(original) } : { original: ledgerValue(original) }),
      replaced: ledgerValue(output),
      applied,
    };
    if (applied) call.setOutput(output);
  }
  if (entry.modification?.applied && call.modifiedBy?.at(-1) !== hook.id) (call.modifiedBy ??= []).push(hook.id);
  if (!applied && entry.modification) entry.reason = capText(`shadow (not applied): ${entry.reason ?? "changed the call"}`, REASON_CAP);
}

/**
 * Once a dispatch redacted the output, the rows of its output changes keep no version of it but
 * the one the record keeps: an earlier change (a replacement, a redaction by fewer rules) may hold
 * what a later redaction hid, so its `replaced` is kept as `{sha256, bytes}`. Rows already written
 * (before a hook with an outside effect) are past changing.
 */
export function keepOnlyRecordedOutput(rows: readonly LedgerEntry[], redaction: OutputRedaction): void {
  for (const row of rows) {
    const change = row?.modification;
    if (change?.kind !== "output" || change.replaced === redaction.output || isHashed(change.replaced)) continue;
    change.replaced = hashedValue(change.replaced);
  }
}

function isHashed(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 2 && "sha256" in value && "bytes" in value;
}
