import { describe, expect, it } from "vitest";
import { timeWindowStart } from "./time-window";

describe("timeWindowStart", () => {
  const wednesday = new Date(2025, 0, 15, 14, 30);

  it("starts this week on Monday at midnight, local time", () => {
    expect(timeWindowStart("week", wednesday)).toEqual(new Date(2025, 0, 13));
    const sunday = new Date(2025, 0, 19, 23, 0);
    expect(timeWindowStart("week", sunday)).toEqual(new Date(2025, 0, 13));
    const monday = new Date(2025, 0, 13, 0, 5);
    expect(timeWindowStart("week", monday)).toEqual(new Date(2025, 0, 13));
  });

  it("rolls the other presets back from now, and has no start for any time", () => {
    expect(timeWindowStart("24h", wednesday)).toEqual(new Date(2025, 0, 14, 14, 30));
    expect(timeWindowStart("today", wednesday)).toEqual(new Date(2025, 0, 15));
    expect(timeWindowStart("7d", wednesday)!.getTime()).toBe(wednesday.getTime() - 7 * 86_400_000);
    expect(timeWindowStart("", wednesday)).toBeUndefined();
    expect(timeWindowStart("fortnight", wednesday)).toBeUndefined();
  });
});
