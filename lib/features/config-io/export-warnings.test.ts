import { describe, expect, it } from "vitest";
import { warningsHeader } from "./config-export";
import { attachmentName, parseWarningsHeader } from "./export-warnings";

describe("export warnings as the browser reads them", () => {
  it("reads back every warning the route wrote, non-ASCII text included", () => {
    const warnings = [
      { path: "hooks[0]", message: "the approve action has no equivalent in Claude Code — left out" },
      { path: "agents[1].budgetUsd", message: "budgets are not exported" },
    ];
    expect(parseWarningsHeader(warningsHeader(warnings))).toEqual(warnings);
  });

  it("says when the header was cut to fit", () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ path: `hooks[${i}]`, message: "x".repeat(40) }));
    const read = parseWarningsHeader(warningsHeader(many));
    expect(read.at(-1)?.message).toMatch(/^\d+ more warning\(s\) left out of this header$/);
  });

  it("is empty without a header, and says so rather than failing on a garbled one", () => {
    expect(parseWarningsHeader(null)).toEqual([]);
    expect(parseWarningsHeader("[]")).toEqual([]);
    expect(parseWarningsHeader("{not json")).toEqual([{ path: "", message: expect.stringContaining("could not read") }]);
  });

  it("takes the file name from Content-Disposition", () => {
    expect(attachmentName('attachment; filename="hookplane.yaml"', "export")).toBe("hookplane.yaml");
    expect(attachmentName(null, "export")).toBe("export");
  });
});
