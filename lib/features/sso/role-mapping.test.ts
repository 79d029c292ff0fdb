import { describe, expect, test } from "vitest";
import { groupsFromClaim, mappedRole, projectRolesOnSignIn } from "./role-mapping";

const mappings = [
  { group: "eng", role: "operator" as const },
  { group: "ops-admins", role: "admin" as const },
  { group: "everyone", role: "viewer" as const },
];

describe("role mapping", () => {
  test("the highest role of the matching groups wins, whatever their order", () => {
    expect(mappedRole(mappings, ["everyone", "eng"])).toBe("operator");
    expect(mappedRole(mappings, ["ops-admins", "everyone", "eng"])).toBe("admin");
    expect(mappedRole([...mappings].reverse(), ["eng", "ops-admins"])).toBe("admin");
    expect(mappedRole(mappings, ["sales"])).toBeUndefined();
    // Group names are compared exactly: no case folding, no prefixes.
    expect(mappedRole(mappings, ["ENG", "eng-interns"])).toBeUndefined();
  });

  test("without project, mappings decide the default project; no match: the default role there", () => {
    expect(projectRolesOnSignIn({ roleMappings: mappings, defaultRole: "viewer" }, ["eng"], true)).toEqual([{ project: "default", role: "operator" }]);
    expect(projectRolesOnSignIn({ roleMappings: mappings, defaultRole: "viewer" }, [], true)).toEqual([{ project: "default", role: "viewer" }]);
    expect(projectRolesOnSignIn({ roleMappings: mappings, defaultRole: null }, ["sales"], false)).toEqual([{ project: "default", role: null }]);
    // Every sign-in decides, so a role set by hand lasts until the next one.
    expect(projectRolesOnSignIn({ roleMappings: mappings, defaultRole: "viewer" }, ["everyone"], false)).toEqual([{ project: "default", role: "viewer" }]);
  });

  test("without mappings a new person gets the default role in the default project; later sign-ins change nothing", () => {
    expect(projectRolesOnSignIn({ roleMappings: [], defaultRole: "operator" }, ["eng"], true)).toEqual([{ project: "default", role: "operator" }]);
    expect(projectRolesOnSignIn({ roleMappings: [], defaultRole: null }, [], true)).toEqual([{ project: "default", role: null }]);
    expect(projectRolesOnSignIn({ roleMappings: [], defaultRole: "viewer" }, ["ops-admins"], false)).toEqual([]);
  });

  test("a mapping naming a project decides that project: highest wins, no match removes", () => {
    const rule = {
      roleMappings: [
        { group: "everyone", role: "viewer" as const },
        { group: "team-a", role: "operator" as const, project: "team-a" },
        { group: "team-a-leads", role: "admin" as const, project: "team-a" },
        { group: "b-readers", role: "viewer" as const, project: "team-b" },
      ],
      defaultRole: null,
    };
    expect(projectRolesOnSignIn(rule, ["team-a-leads", "team-a"], false)).toEqual([
      { project: "default", role: null },
      { project: "team-a", role: "admin" },
      { project: "team-b", role: null },
    ]);
    // The default project's mappings do not leak into a named project, nor the other way round.
    expect(projectRolesOnSignIn(rule, ["everyone", "b-readers"], true)).toEqual([
      { project: "default", role: "viewer" },
      { project: "team-a", role: null },
      { project: "team-b", role: "viewer" },
    ]);
    // Naming the default project by its slug is the same as naming none.
    expect(projectRolesOnSignIn({ roleMappings: [{ group: "g", role: "admin", project: "default" }], defaultRole: "viewer" }, ["g"], false)).toEqual([
      { project: "default", role: "admin" },
    ]);
  });

  test("the groups claim is a list of strings or one string; anything else is no groups", () => {
    expect(groupsFromClaim(["a", 1, "b", null])).toEqual(["a", "b"]);
    expect(groupsFromClaim("admins")).toEqual(["admins"]);
    expect(groupsFromClaim(undefined)).toEqual([]);
    expect(groupsFromClaim({ a: 1 })).toEqual([]);
  });
});
