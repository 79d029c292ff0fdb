import { expect, test } from "vitest";
import { alertLine, formatMinutes, formatUsd, type AlertSubject } from "./alert-text";

const rule = (over: Partial<AlertSubject> = {}): AlertSubject => ({ name: "ops-spend", kind: "cost", agentName: "ops-bot", windowMinutes: 60, waitMinutes: null, ...over });

test("one line per transition, as the issue words it", () => {
  expect(alertLine(rule(), "firing", 12.4, 10)).toBe("Alert ops-spend: cost of agent ops-bot $12.40 over the last 1 h is above $10");
  expect(alertLine(rule({ agentName: null, windowMinutes: 1440 }), "reminder", 31, 25.5)).toBe("Still firing ops-spend: total cost $31 over the last 1 d is above $25.50");
  expect(alertLine(rule({ kind: "runs_failed", windowMinutes: 90 }), "resolved", 2, 3)).toBe("Resolved ops-spend: failed runs of agent ops-bot 2 over the last 90 min is back at or below 3");
  expect(alertLine(rule({ kind: "approvals_waiting", agentName: null, windowMinutes: null, waitMinutes: 15 }), "firing", 4, 0)).toBe(
    "Alert ops-spend: approvals waiting longer than 15 min 4 is above 0",
  );
  expect(alertLine(rule({ kind: "hook_failures", agentName: null, windowMinutes: 120 }), "firing", 7, 5)).toBe("Alert ops-spend: hook failures 7 over the last 2 h is above 5");
});

test("minutes and dollars as people read them", () => {
  expect([1, 45, 60, 90, 180, 1440, 2880].map(formatMinutes)).toEqual(["1 min", "45 min", "1 h", "90 min", "3 h", "1 d", "2 d"]);
  expect([0, 10, 12.4, 0.5, 0.0042, 1234.567].map(formatUsd)).toEqual(["$0", "$10", "$12.40", "$0.50", "$0.0042", "$1234.57"]);
});
