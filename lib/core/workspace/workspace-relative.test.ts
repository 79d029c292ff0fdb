import { describe, expect, it } from "vitest";
import { workspacePathProblem } from "./workspace-relative";

describe("workspacePathProblem", () => {
  it("accepts paths that stay inside", () => {
    for (const ok of ["metadata.json", "out/meta.json", "./a/../b.json", "a/b/../../c.json", "..json", "a/..b"]) expect(workspacePathProblem(ok)).toBeUndefined();
  });
  it("refuses absolute paths and paths that climb out, naming them", () => {
    expect(workspacePathProblem("/etc/passwd")).toBe('"/etc/passwd" is an absolute path: give a path inside the agent\'s workspace');
    for (const bad of ["../../../../etc/passwd", "..", "a/../../b", "./../x", "a//../../b"]) {
      expect(workspacePathProblem(bad)).toBe(`"${bad}" leads outside the agent's workspace`);
    }
    expect(workspacePathProblem("a\0b")).toContain("NUL");
  });
});
