import { describe, expect, test } from "vitest";
import { groupsFromClaim, mappedRole, roleForNewUser, roleOnSignIn } from "./role-mapping";

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

  test("a new person gets the mapped role, else the default (null: no access)", () => {
    expect(roleForNewUser({ roleMappings: mappings, defaultRole: "viewer" }, ["eng"])).toBe("operator");
    expect(roleForNewUser({ roleMappings: mappings, defaultRole: "viewer" }, [])).toBe("viewer");
    expect(roleForNewUser({ roleMappings: mappings, defaultRole: null }, ["sales"])).toBeNull();
    expect(roleForNewUser({ roleMappings: [], defaultRole: "operator" }, ["eng"])).toBe("operator");
  });

  test("with mappings every sign-in decides the role; without, the current role stays", () => {
    expect(roleOnSignIn({ roleMappings: mappings, defaultRole: "viewer" }, ["everyone"], "admin")).toBe("viewer");
    expect(roleOnSignIn({ roleMappings: mappings, defaultRole: null }, [], "operator")).toBeNull();
    expect(roleOnSignIn({ roleMappings: [], defaultRole: "viewer" }, ["ops-admins"], "operator")).toBe("operator");
    expect(roleOnSignIn({ roleMappings: [], defaultRole: "viewer" }, [], null)).toBeNull();
  });

  test("the groups claim is a list of strings or one string; anything else is no groups", () => {
    expect(groupsFromClaim(["a", 1, "b", null])).toEqual(["a", "b"]);
    expect(groupsFromClaim("admins")).toEqual(["admins"]);
    expect(groupsFromClaim(undefined)).toEqual([]);
    expect(groupsFromClaim({ a: 1 })).toEqual([]);
  });
});
