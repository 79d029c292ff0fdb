import { describe, expect, it } from "vitest";
import { createRedactor } from "./redact";

const SECRET = "Tok+En/Value=9?&~";

describe("the redactor", () => {
  const redact = createRedactor([SECRET]);
  const bytes = Buffer.from(SECRET, "utf8");

  it.each([
    ["exact", SECRET],
    ["lower-cased (a URL host)", SECRET.toLowerCase()],
    ["upper-cased", SECRET.toUpperCase()],
    ["base64", bytes.toString("base64")],
    ["base64url", bytes.toString("base64url")],
    ["hex", bytes.toString("hex")],
    ["HEX", bytes.toString("hex").toUpperCase()],
    ["encodeURIComponent", encodeURIComponent(SECRET)],
    ["lower-case percent escapes", encodeURIComponent(SECRET).toLowerCase()],
    ["form encoding", new URLSearchParams({ v: SECRET }).toString().slice(2)],
  ])("removes the %s form", (_name, form) => {
    const out = redact(`before ${form} after`);
    expect(out).toContain("[REDACTED]");
    expect(out).not.toContain(form);
  });

  it.each([1, 2, 3, 7])("finds the value inside a longer base64 text at any alignment (prefix of %i bytes)", (prefix) => {
    const encoded = Buffer.from(`${"p".repeat(prefix)}${SECRET}trailer`, "utf8").toString("base64");
    const out = redact(encoded);
    expect(out).toContain("[REDACTED]");
    expect(Buffer.from(out.replace("[REDACTED]", ""), "base64").toString("utf8")).not.toContain(SECRET);
  });

  it("removes the JSON-escaped form of a value with quotes and backslashes", () => {
    const value = 'pa"ss\\word';
    const escaped = JSON.stringify(value).slice(1, -1);
    expect(escaped).not.toBe(value);
    expect(createRedactor([value])(`{"echo":"${escaped}"}`)).toBe('{"echo":"[REDACTED]"}');
  });

  it("leaves other text alone and ignores values too short to redact safely", () => {
    expect(redact("nothing to see")).toBe("nothing to see");
    expect(createRedactor(["abc"])("abc abc")).toBe("abc abc");
  });
});
