import { describe, expect, it } from "vitest";
import { jsonMayContain, jsonNeedle } from "./json-prefilter";
import { compileLinearRegex, isLiteralPattern } from "./linear-regex";
import { createHookRuntime } from "./runtime";
import type { RuntimeHook } from "./runtime-types";

const needleOf = (pattern: string) => jsonNeedle(pattern, isLiteralPattern(pattern));

describe("jsonNeedle", () => {
  it("takes the longest piece that can only sit inside one JSON string", () => {
    expect(needleOf('"file_path":"/srv/prod')).toBe("/srv/prod");
    expect(needleOf('"file_path":"/srv/prod(/|")')).toBe("/srv/prod");
    expect(needleOf("rm -rf /")).toBe("m -rf /"); // "r" could follow a backslash (\r)
    expect(needleOf("n/srv")).toBe("/srv");
    expect(needleOf("prod+")).toBe("pro"); // the quantified character is optional
    expect(needleOf("DROP TABLE.*users")).toBe("DROP TABLE");
  });

  it("has none when no text is required or usable", () => {
    for (const pattern of ["a|b", "prod|stage", "^/srv", "(/srv)", "[|]abc", "\\Q/srv|x\\E", '"true"', "1,2", "null", "x?"]) {
      expect(needleOf(pattern), pattern).toBeUndefined();
    }
  });
});

describe("jsonMayContain", () => {
  it("walks plain objects, arrays and keys", () => {
    expect(jsonMayContain({ file_path: "/home/a.ts", content: "x" }, "/srv/prod")).toBe(false);
    expect(jsonMayContain({ file_path: "/srv/prod/a.ts" }, "/srv/prod")).toBe(true);
    expect(jsonMayContain({ a: [1, true, null, { b: ["/srv/prod"] }] }, "/srv/prod")).toBe(true);
    expect(jsonMayContain({ "/srv/prod": 1 }, "/srv/prod")).toBe(true);
    expect(jsonMayContain("/srv/prod", "/srv/prod")).toBe(true);
  });

  it("says maybe for anything JSON.stringify could turn into other text", () => {
    class Path {
      constructor(readonly p: string) {}
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [
      { at: new Date(0) },
      { p: new Path("x") },
      { p: { toJSON: () => "/srv/prod" } },
      { n: 1n },
      { m: new Map() },
      { s: new String("x") },
      cyclic,
    ]) {
      expect(jsonMayContain(value, "/srv/prod")).toBe(true);
    }
  });

  it("never says no when the pattern matches the JSON (randomized against JSON.stringify)", () => {
    let seed = 12345;
    const rand = (n: number) => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
    const pieces = ["/srv/prod", "n/srv", "\n", "\\", '"', "\t", "\u0001", "\ud800", "é", "u0001x", "prod", ":", ",", "{", "]", "1e+21", "true", "rm -rf", "x"];
    const str = () => Array.from({ length: rand(4) }, () => pieces[rand(pieces.length)]).join("");
    const value = (depth: number): unknown => {
      switch (depth > 2 ? rand(5) : rand(8)) {
        case 0: return str();
        case 1: return rand(3) === 0 ? 1e21 : rand(1000) - 500;
        case 2: return rand(2) === 0;
        case 3: return rand(2) === 0 ? null : undefined;
        case 4: return rand(2) === 0 ? Number.NaN : () => 1;
        case 5: return Array.from({ length: rand(4) }, () => value(depth + 1));
        default: return Object.fromEntries(Array.from({ length: rand(4) }, () => [str(), value(depth + 1)]));
      }
    };
    let checked = 0;
    let decidedWithoutJson = 0;
    for (let i = 0; i < 4000; i++) {
      const input = value(0);
      const json = JSON.stringify(input) ?? "";
      // Patterns: slices of this very JSON (so many match), as literals and with a regex tail.
      const from = rand(json.length + 1);
      const literal = json.slice(from, from + 1 + rand(12));
      const escaped = literal.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
      const patterns = [literal, `${escaped}(x|y)?`, `/srv/prod|${escaped}`, `${escaped}?`, `${escaped}*`, "/srv/prod", "n/srv", "u0001x"];
      for (const pattern of patterns) {
        const needle = needleOf(pattern);
        if (needle === undefined || pattern === "") continue;
        let re;
        try {
          re = compileLinearRegex(pattern);
        } catch {
          continue; // the slice cut an escape in half
        }
        checked++;
        if (!jsonMayContain(input, needle)) {
          decidedWithoutJson++;
          expect(re.test(json), `${pattern} on ${json}`).toBe(false);
        }
      }
    }
    expect(checked).toBeGreaterThan(4000);
    expect(decidedWithoutJson).toBeGreaterThan(1000);
  });
});

describe("denyIf through the runtime", () => {
  const hook = (id: string, denyIf: string): RuntimeHook => ({
    id,
    event: "tool.pre",
    scope: "global",
    enabled: true,
    mode: "enforce",
    action: { type: "block", reason: `no ${id}`, denyIf },
  });
  const dispatch = (hooks: RuntimeHook[], toolInput: unknown) =>
    createHookRuntime().dispatch(hooks, { type: "tool.pre", runId: "r", agentName: "a", ts: 0, data: { toolName: "write_file", toolInput } });

  it("blocks on matches the walk cannot see in raw strings (escapes) and allows the rest", async () => {
    const hooks = [hook("newline-srv", "n/srv")];
    expect((await dispatch(hooks, { p: "a\n/srv" })).verdict).toBe("block"); // JSON: "a\n/srv"
    expect((await dispatch(hooks, { p: "an/srvx" })).verdict).toBe("block");
    expect((await dispatch(hooks, { p: "a /srv" })).verdict).toBe("allow");
    expect((await dispatch(hooks, { p: "/home" })).verdict).toBe("allow");
  });

  it("gives every hook of a dispatch the same answer, walked or from the shared JSON", async () => {
    const hooks = [hook("h1", '"file_path":"/srv/prod'), hook("h2", "/srv/stage"), hook("h3", '"file_path":"/srv/prod(/|")')];
    const allowed = await dispatch(hooks, { file_path: "/home/app/a.ts" });
    expect(allowed.verdict).toBe("allow");
    expect(allowed.ledger.map((row) => row.verdict)).toEqual(["allow", "allow", "allow"]);
    expect((await dispatch(hooks, { file_path: "/srv/stage/a.ts" })).blockedBy).toBe("h2");
    expect((await dispatch(hooks, { file_path: "/srv/prod/a.ts" })).blockedBy).toBe("h1");
    expect((await dispatch([hooks[2]], { file_path: "/srv/prod" })).blockedBy).toBe("h3");
    expect((await dispatch([hooks[2]], { file_path: "/srv/production" })).verdict).toBe("allow");
    expect((await dispatch([hooks[0]], { file_path: "/srv/prod", at: new Date(0) })).verdict).toBe("block");
  });
});
