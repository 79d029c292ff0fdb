/**
 * A hook's change to a tool call (a modify hook, or an approver's edit): what its ledger row keeps
 * and what the rest of the chain sees. Apart from the dispatch because only modifying hooks reach it.
 */
import type { CompiledHook } from "./compiled-hooks";
import type { HookEvent } from "./event";
import type { ActionResult } from "./executors/types";
import type { LedgerEntry } from "./ledger";
import { ledgerValue, sha256Of } from "./modification-record";
import { capText } from "./redact";
import { REASON_CAP } from "./ledger-row";

/** The dispatch as a change to its call sees it (dispatch.ts's Dispatch is one). */
export interface ModifiableCall {
  readonly event: HookEvent;
  reminders: string[] | undefined;
  modifiedBy: string[] | undefined;
  setInput(input: Record<string, unknown>): void;
  setOutput(output: unknown): void;
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
    entry.modification = {
      kind: "output",
      ...(redacted ? { originalSha256: sha256Of(original) } : { original: ledgerValue(original) }),
      replaced: ledgerValue(output),
      applied,
    };
    if (applied) call.setOutput(output);
  }
  if (entry.modification?.applied && call.modifiedBy?.at(-1) !== hook.id) (call.modifiedBy ??= []).push(hook.id);
  if (!applied && entry.modification) entry.reason = capText(`shadow (not applied): ${entry.reason ?? "changed the call"}`, REASON_CAP);
}
