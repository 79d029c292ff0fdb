import { describe, expect, test } from "vitest";
import { approvalDeadline, approvalTimeout } from "./approval-timeout";

describe("the one approval timeout rule", () => {
  test.each([
    ["deny", 300_000, "deny", "no decision within 300 s; onTimeout deny"],
    ["allow", 300_000, "approve", "no decision within 300 s; onTimeout allow"],
    // The sweeper's wait is expiry minus request time: a few ms of two clocks round away.
    ["deny", 1_799_996, "deny", "no decision within 1800 s; onTimeout deny"],
    ["allow", 400, "approve", "no decision within 400 ms; onTimeout allow"],
    ["deny", 0, "deny", "no decision within 0 ms; onTimeout deny"],
    // A clock a little behind the database's says no less than nothing.
    ["deny", -3, "deny", "no decision within 0 ms; onTimeout deny"],
    // The row keeps onTimeout as text: anything but allow denies (fail closed).
    ["wait", 60_000, "deny", "no decision within 60 s; onTimeout wait"],
    ["bogus", 60_000, "deny", "no decision within 60 s; onTimeout bogus"],
  ])("onTimeout %s after %i ms: %s, %s", (onTimeout, waitedMs, decision, reason) => {
    expect(approvalTimeout(onTimeout, waitedMs)).toEqual({ decision, status: "timed_out", timedOut: true, reason });
  });

  test.each([
    ["deny", 1_000, 5_000, 6_000],
    ["allow", 1_000, 5_000, 6_000],
    ["wait", 1_000, 5_000, undefined],
  ] as const)("onTimeout %s asked for %i ms at %i: deadline %s", (onTimeout, timeoutMs, now, deadline) => {
    expect(approvalDeadline(onTimeout, timeoutMs, now)).toBe(deadline);
  });
});
