import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MAX_REDIRECT_LENGTH, safeRedirectPath, signInPath } from "./redirect-target";

const FALLBACK = "/agents";

/** Where a browser at our origin ends up when it follows `Location: <target>`. */
function landsOn(target: string): string {
  return new URL(target, "https://hookplane.example.com/sign-in").origin;
}

describe("safeRedirectPath: only a path of ours", () => {
  test.each([
    // The attack report's: dot segments that collapse into `//host`.
    "/..//evil.example/x",
    "/.//evil.example/x",
    "/%2e%2e//evil.example/x",
    "/%2E%2E//evil.example/x",
    "/.%2e/%2e%2e//evil",
    "/a/../..//evil",
    "/a/%2e%2e/%2e%2e//evil",
    // Encoded slashes and backslashes a later decoder turns into `//` or `/\`.
    "/%2f/evil.example",
    "/%2F%2Fevil.example",
    "/%5c/evil.example",
    "/%5Cevil.example",
    "/%252f/evil.example",
    "/%25252f%25252fevil.example",
    "/a/%252e%252e//evil",
    // Tabs, newlines and other control characters, raw or encoded (browsers drop them).
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/%09/evil.example",
    "/%0a/evil.example",
    "/%0d%0a/evil.example",
    "/\u0000/evil.example",
    "/%00/evil.example",
    "/\u007f/evil",
    "/\u0085/evil",
    // Two slashes, or a slash and a backslash, in any order.
    "//evil.example",
    "////evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "\\/evil.example",
    "\\\\evil.example",
    "/x\\..\\..\\/evil",
    // Schemes and other origins.
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "https://evil.example",
    "https:evil.example",
    "http://hookplane.invalid//evil",
    "//xn--80ak6aa92e.com",
    "//аррӏе.com",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    "",
    " /agents",
  ])("%j is refused", (target) => {
    expect(safeRedirectPath(target, FALLBACK)).toBe(FALLBACK);
  });

  test.each([
    ["/agents", "/agents"],
    ["/runs?status=finished#top", "/runs?status=finished#top"],
    ["/device?code=ABCD-EFGH", "/device?code=ABCD-EFGH"],
    ["/hooks/a/../b", "/hooks/b"],
    ["/runs/./x", "/runs/x"],
    ["/agents/my%20agent", "/agents/my%20agent"],
    ["/agents/naïve", "/agents/na%C3%AFve"],
    ["/runs?q=//evil.example", "/runs?q=//evil.example"],
    ["/runs?q=%2F%2Fevil", "/runs?q=%2F%2Fevil"],
    ["/javascript:alert(1)", "/javascript:alert(1)"],
    ["/a//b", "/a//b"],
  ])("%j is kept as %j", (target, kept) => {
    expect(safeRedirectPath(target, FALLBACK)).toBe(kept);
  });

  test("anything that is not a string, and a very long path, is the fallback", () => {
    for (const value of [undefined, null, 42, ["/agents"], { toString: () => "/agents" }, new File(["/agents"], "next")]) {
      expect(safeRedirectPath(value, FALLBACK)).toBe(FALLBACK);
    }
    expect(safeRedirectPath(`/${"a".repeat(MAX_REDIRECT_LENGTH)}`, FALLBACK)).toBe(FALLBACK);
    expect(safeRedirectPath(`/${"a".repeat(MAX_REDIRECT_LENGTH - 1)}`, FALLBACK)).toHaveLength(MAX_REDIRECT_LENGTH);
    expect(safeRedirectPath("/" + "%2e%2e/".repeat(1000) + "/evil", FALLBACK)).toBe(FALLBACK);
  });

  test("whatever it is given, the answer is a path a browser resolves to our origin, also once decoded", () => {
    const pieces = fc.constantFrom("/", "//", "\\", ".", "..", "%2e", "%2E", "%2f", "%2F", "%5c", "%25", "%09", "%0a", "\t", "\n", "evil.example", "a", ":", "?", "#", "@", "https:", "javascript:", "%", "%zz");
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join("")), (target) => {
        const kept = safeRedirectPath(target, FALLBACK);
        expect(kept.startsWith("/") && !kept.startsWith("//")).toBe(true);
        expect(landsOn(kept)).toBe("https://hookplane.example.com");
        // Decoded any number of times, it still does not name another host.
        let decoded = kept;
        for (let i = 0; i < 4; i++) decoded = decoded.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        expect(landsOn(decoded.replace(/[\t\n\r]/g, "").replace(/\\/g, "/"))).toBe("https://hookplane.example.com");
      }),
      { numRuns: 2000 },
    );
  });
});

describe("signInPath", () => {
  test("comes back to a path of ours, and to nothing else", () => {
    expect(signInPath("/device?code=ABCD-EFGH")).toBe("/sign-in?next=%2Fdevice%3Fcode%3DABCD-EFGH");
    expect(signInPath("/..//evil.example/x")).toBe("/sign-in");
    expect(signInPath(undefined)).toBe("/sign-in");
    expect(signInPath("/")).toBe("/sign-in");
  });
});
