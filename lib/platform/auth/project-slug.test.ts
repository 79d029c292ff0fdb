import { describe, expect, test } from "vitest";
import { isProjectSlug, projectPathRewrite, projectSlugSchema } from "./project-slug";

describe("project slugs", () => {
  test("lowercase letters, digits and dashes, 2 to 40, no dash at either end", () => {
    for (const ok of ["default", "team-a", "a1", "x".repeat(40)]) expect(isProjectSlug(ok)).toBe(true);
    for (const bad of ["a", "Team", "-a", "a-", "a_b", "a b", "x".repeat(41), "é1"]) expect(isProjectSlug(bad)).toBe(false);
    expect(projectSlugSchema.safeParse("Team A").error?.issues[0].message).toMatch(/lowercase letters, digits and dashes/);
  });

  test("the path prefix becomes the plain route acting in that project", () => {
    expect(projectPathRewrite("/api/v1/projects/team-a/agents")).toEqual({ url: "/api/v1/agents", project: "team-a" });
    expect(projectPathRewrite("/api/v1/projects/team-a/runs/1/events?after=3")).toEqual({ url: "/api/v1/runs/1/events?after=3", project: "team-a" });
  });

  test("the project's own routes, other paths and non-slugs stay as they are", () => {
    for (const url of [
      "/api/v1/projects",
      "/api/v1/projects/team-a",
      "/api/v1/projects/team-a/",
      "/api/v1/projects/team-a?x=1",
      "/api/v1/projects/team-a/members",
      "/api/v1/projects/team-a/members/0000",
      "/api/v1/projects/Team/agents",
      "/api/v1/projects/..%2f/agents",
      "/api/v1/agents",
    ]) {
      expect(projectPathRewrite(url)).toBeUndefined();
    }
  });
});
