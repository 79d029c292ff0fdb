/**
 * `allow`: lets a tool call through without asking a person. The runtime skips the `approve`
 * hooks after it on the same event (block hooks still run: an allow rule never overrides a
 * guard). With `input`, it applies only to a call whose input is that exact JSON, compared in
 * RFC 8785 canonical form so key order does not matter. In shadow mode it says what it would have
 * let through and the approvals after it still ask.
 */
import canonicalize from "canonicalize";
import type { AllowAction } from "../spec";
import type { ActionResult, CompiledAction } from "./types";

/** The canonical JSON of a tool input: what an allow rule's `input` is compared by. */
export function canonicalInput(input: unknown): string {
  return canonicalize(input ?? null) ?? "null";
}

export function compileAllow(action: AllowAction): CompiledAction {
  const wanted = action.input === undefined ? undefined : canonicalInput(action.input);
  const reason = action.reason ?? (wanted === undefined ? "allowed by rule" : "allowed by rule: the same input was approved before");
  const allowed: ActionResult = { verdict: "allow", reason, grants: true };
  const wouldAllow: ActionResult = { verdict: "allow", reason: `shadow: would allow without asking (${reason})`, grants: true };
  return {
    secretNames: [],
    filter:
      wanted === undefined
        ? undefined
        : (event) => (canonicalInput(event.data.toolInput) === wanted ? undefined : "the tool input is not the one this rule allows"),
    executor: {
      async: false,
      run: (run) => (run.shadow ? wouldAllow : allowed),
    },
  };
}
