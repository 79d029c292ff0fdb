import { describe, expect, it } from "vitest";
import { fitLabel, labelColumnWidth, usdAxis } from "./cost-axis";

describe("the cost axis", () => {
  it("never says two ticks the same way, sub-cent costs included", () => {
    for (const max of [0.0004, 0.003, 0.0175, 0.02, 0.07, 0.4, 1, 3.3, 17, 240, 12_345]) {
      const axis = usdAxis(max);
      const labels = axis.ticks.map(axis.format);
      expect(new Set(labels).size, `${max}: ${labels.join(" ")}`).toBe(labels.length);
      expect(axis.domainMax).toBeGreaterThanOrEqual(max);
      expect(axis.ticks.length).toBeLessThanOrEqual(6);
    }
  });

  it("says cents as cents and round steps plainly", () => {
    const small = usdAxis(0.02);
    expect(small.ticks.map(small.format)).toEqual(["$0", "$0.005", "$0.010", "$0.015", "$0.020"]);
    const dollars = usdAxis(17);
    expect(dollars.ticks.map(dollars.format)).toEqual(["$0", "$5", "$10", "$15", "$20"]);
    expect(usdAxis(0).ticks).toEqual([0]);
  });
});

describe("model and agent names beside the bars", () => {
  it("gets the column it needs, within bounds", () => {
    expect(labelColumnWidth(["a"])).toBe(60);
    expect(labelColumnWidth(["scripted", "openai:gpt-4.1-mini"])).toBe(Math.round(19 * 6.5 + 12));
    expect(labelColumnWidth(["anthropic:claude-sonnet-4-5-20250929-with-a-long-suffix"])).toBe(180);
  });

  it("shows a name whole when it fits, and with an ellipsis (never cut silently) when not", () => {
    expect(fitLabel("openai:gpt-4.1-mini", labelColumnWidth(["openai:gpt-4.1-mini"]))).toBe("openai:gpt-4.1-mini");
    const long = "anthropic:claude-sonnet-4-5-20250929-with-a-long-suffix";
    const shown = fitLabel(long, 180);
    expect(shown.endsWith("…")).toBe(true);
    expect(long.startsWith(shown.slice(0, -1))).toBe(true);
    expect(shown.length * 6.5).toBeLessThanOrEqual(180);
  });
});
