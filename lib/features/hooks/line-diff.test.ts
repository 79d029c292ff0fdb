import { describe, expect, it } from "vitest";
import { diffLines } from "@/components/ui/line-diff";
import { specToText } from "./spec-text";

describe("line diff", () => {
  it("marks removed and added lines around the common ones", () => {
    expect(diffLines("a\nb\nc", "a\nx\nc\nd")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "x" },
      { kind: "same", text: "c" },
      { kind: "added", text: "d" },
    ]);
    expect(diffLines("same", "same")).toEqual([{ kind: "same", text: "same" }]);
  });

  it("compares specs whatever order their keys come back in", () => {
    const a = { action: { denyIf: "x", type: "block" }, event: "tool.pre", id: "h" };
    const b = { id: "h", event: "tool.pre", action: { type: "block", denyIf: "x" } };
    expect(specToText(a)).toBe(specToText(b));
    expect(specToText(b).split("\n")[1]).toContain('"id"');
  });
});
