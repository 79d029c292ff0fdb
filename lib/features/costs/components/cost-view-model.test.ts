import { expect, test } from "vitest";
import { fillDays, parseWindowDays, windowStart } from "./cost-report";
import { draftFromRow, draftToRequest, matchDraft } from "./price-draft";

test("the window covers whole UTC days, today included, and only 7, 30 or 90 of them", () => {
  const now = new Date("2026-03-10T15:30:00Z");
  expect(windowStart(7, now).toISOString()).toBe("2026-03-04T00:00:00.000Z");
  expect(parseWindowDays("90")).toBe(90);
  expect(parseWindowDays("12")).toBe(30);
  expect(parseWindowDays(null)).toBe(30);
});

test("days without runs are filled with zero so the chart has no holes", () => {
  const from = new Date("2026-03-08T00:00:00Z");
  expect(fillDays([{ day: "2026-03-09", costUsd: 0.5, runs: 2 }], from, 3)).toEqual([
    { day: "2026-03-08", costUsd: 0, runs: 0 },
    { day: "2026-03-09", costUsd: 0.5, runs: 2 },
    { day: "2026-03-10", costUsd: 0, runs: 0 },
  ]);
});

test("editor rows keep what was typed; numbers go out as numbers, the rest as typed for zod to name", () => {
  const draft = draftFromRow({ id: "a", modelPattern: "^scripted$", inputUsdPerM: 1, outputUsdPerM: 2, cachedUsdPerM: 0.1, effectiveFrom: "2025-01-01T00:00:00.000Z" });
  expect(draftToRequest(draft)).toEqual({ modelPattern: "^scripted$", inputUsdPerM: 1, outputUsdPerM: 2, cachedUsdPerM: 0.1, effectiveFrom: "2025-01-01T00:00:00Z" });
  expect(draftToRequest({ ...draft, inputUsdPerM: "1,5", outputUsdPerM: "" })).toMatchObject({ inputUsdPerM: "1,5", outputUsdPerM: "" });
});

test("test match uses pickPrice over the rows as edited, skipping unreadable ones", () => {
  const base = { inputUsdPerM: "1", outputUsdPerM: "2", cachedUsdPerM: "0", effectiveFrom: "2025-01-01" };
  const rows = [
    { key: "any", modelPattern: "^openai:", ...base },
    { key: "mini", modelPattern: "^openai:gpt-4\\.1-mini$", ...base },
    { key: "broken", modelPattern: "^openai:gpt-4\\.1-mini$|", ...base, inputUsdPerM: "x" },
  ];
  expect(matchDraft(rows, "openai:gpt-4.1-mini")?.key).toBe("mini");
  expect(matchDraft(rows, "openai:o3")?.key).toBe("any");
  expect(matchDraft(rows, "scripted")).toBeUndefined();
  expect(matchDraft(rows, "  ")).toBeUndefined();
});
