import { describe, expect, it } from "vitest";
import { compileLinearRegex } from "./linear-regex";
import { compileGlobs, compileMatcher } from "./matcher";
import { createRedactor } from "./redact";
import { renderTemplate, secretNamesIn, substituteSecrets } from "./template";
import { compileWhen } from "./when";

describe("matcher", () => {
  it("matches everything when empty or *", () => {
    expect(compileMatcher(undefined)("Anything")).toBe(true);
    expect(compileMatcher("*")("Bash")).toBe(true);
  });
  it("matches exact names and A|B lists, never prefixes", () => {
    const write = compileMatcher("Write");
    expect(write("Write")).toBe(true);
    expect(write("WriteFile")).toBe(false);
    const list = compileMatcher("Edit|Write");
    expect([list("Edit"), list("Write"), list("Read")]).toEqual([true, true, false]);
  });
  it("treats anything else as a whole-name regex", () => {
    const mcp = compileMatcher("mcp__.*");
    expect(mcp("mcp__memory__read")).toBe(true);
    expect(mcp("x_mcp__a")).toBe(false);
  });
  it("is linear-time: a pathological pattern on a long input returns quickly", () => {
    const re = compileLinearRegex("(a+)+$");
    const start = performance.now();
    expect(re.test(`${"a".repeat(50_000)}!`)).toBe(false);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe("globs (Loom approve tools)", () => {
  it("matches * and ? over whole names, escaping regex characters", () => {
    const m = compileGlobs(["shell", "write_*", "a.b?"]);
    expect([m("shell"), m("write_file"), m("a.bc"), m("axbc"), m("read_file")]).toEqual([true, true, true, false, false]);
  });
});

describe("when", () => {
  const ctx = { metadata: { shouldNotify: true, retailer: "Staples" }, result: { success: false, error: "" }, toolName: "Write" };
  it("checks a dot path for truthiness and says why not", () => {
    expect(compileWhen("metadata.shouldNotify").check(ctx)).toBeUndefined();
    expect(compileWhen("result.success").check(ctx)).toBe("when result.success is falsy");
    expect(compileWhen("result.error").check(ctx)).toBe("when result.error is falsy");
    expect(compileWhen("metadata.missing.deeper").check(ctx)).toBe("when metadata.missing.deeper is falsy");
  });
  it("matches `field: /regex/` and `field: value`", () => {
    expect(compileWhen("toolName: /^(Write|Edit)$/").check(ctx)).toBeUndefined();
    expect(compileWhen("toolName: /^read$/i").check(ctx)).toBe("when toolName did not match /^read$/i");
    expect(compileWhen("metadata.retailer: Staples").check(ctx)).toBeUndefined();
    expect(compileWhen('metadata.retailer: "Amazon"').check(ctx)).toBe('when metadata.retailer is not "Amazon"');
  });
  it("does not follow prototype keys", () => {
    expect(compileWhen("metadata.constructor").check(ctx)).toBe("when metadata.constructor is falsy");
  });
  it("negates a path form with a leading !, saying what held", () => {
    const people = { actor: { groups: ["eng", "on-call"], role: "operator" } };
    const notOnCall = compileWhen('!actor.groups: /"on-call"/');
    expect(notOnCall.check(people)).toBe('when !actor.groups: /"on-call"/: actor.groups: /"on-call"/ holds');
    expect(notOnCall.check({ actor: { groups: ["eng"] } })).toBeUndefined();
    // No groups at all (a token no person owns): not on call either.
    expect(notOnCall.check({ actor: {} })).toBeUndefined();
    expect(compileWhen("! actor.role: admin").check(people)).toBeUndefined();
    expect(compileWhen("!metadata.shouldNotify").check(ctx)).toBe("when !metadata.shouldNotify: metadata.shouldNotify holds");
    expect(compileWhen("!result.success").check(ctx)).toBeUndefined();
  });
  it("refuses a negated detector and a double negation, saying why", () => {
    expect(() => compileWhen("!detects(shell.destructive)")).toThrow(/cannot be negated/);
    expect(() => compileWhen("!!actor.role: admin")).toThrow(/negates once/);
    expect(() => compileWhen("!")).toThrow(/dot path/);
  });
});

describe("templates and secrets", () => {
  it("fills {{vars}}, falls back to context paths, keeps unknown placeholders", () => {
    const out = renderTemplate("{{response}} at {{ metadata.retailer }} {{nope}}", { response: "done" }, { metadata: { retailer: "Staples" } });
    expect(out).toBe("done at Staples {{nope}}");
  });
  it("finds and substitutes ${secret:NAME}", () => {
    expect([...secretNamesIn({ a: "Bearer ${secret:CI_TOKEN}", b: ["${secret:OTHER}"] })]).toEqual(["CI_TOKEN", "OTHER"]);
    expect(substituteSecrets("Bearer ${secret:CI_TOKEN}", new Map([["CI_TOKEN", "abc123"]]))).toBe("Bearer abc123");
  });
  it("redacts secret values everywhere in a text", () => {
    const redact = createRedactor(["s3cr3t-value", "ab"]);
    expect(redact("x s3cr3t-value y s3cr3t-value ab")).toBe("x [REDACTED] y [REDACTED] ab");
  });
});
