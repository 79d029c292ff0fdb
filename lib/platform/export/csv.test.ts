import { describe, expect, it } from "vitest";
import { csvCell, csvLine } from "./csv";

describe("csv", () => {
  it("leaves plain fields bare and quotes the ones a parser would split", () => {
    expect(csvCell("no-prod")).toBe("no-prod");
    expect(csvCell('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("cr\ronly")).toBe('"cr\ronly"');
    expect(csvCell(" padded ")).toBe('" padded "');
  });

  it("writes empty cells for missing values, ISO dates, and JSON for objects", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(false)).toBe("false");
    expect(csvCell(0.25)).toBe("0.25");
    expect(csvCell(new Date("2025-01-02T03:04:05Z"))).toBe("2025-01-02T03:04:05.000Z");
    expect(csvCell({ decision: "deny" })).toBe('"{""decision"":""deny""}"');
  });

  it("neutralises text a spreadsheet would run as a formula, and only text", () => {
    expect(csvCell("=cmd|' /C calc'!A0")).toBe("'=cmd|' /C calc'!A0");
    expect(csvCell("+1+1")).toBe("'+1+1");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell("\r=1")).toBe(`"'\r=1"`);
    expect(csvCell('=HYPERLINK("http://x", "y")')).toBe(`"'=HYPERLINK(""http://x"", ""y"")"`);
    // Not at the start, or not text: left alone.
    expect(csvCell("a=b")).toBe("a=b");
    expect(csvCell(-1.5)).toBe("-1.5");
    expect(csvCell(new Date("2025-01-02T03:04:05Z"))).toBe("2025-01-02T03:04:05.000Z");
  });

  it("ends every line with CRLF", () => {
    expect(csvLine(["a", 1, null, "b,c"])).toBe('a,1,,"b,c"\r\n');
  });
});
