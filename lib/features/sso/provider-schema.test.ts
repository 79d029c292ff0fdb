import { describe, expect, test } from "vitest";
import { issuerSchema, providerCreateSchema, providerPatchSchema } from "./provider-schema";
import { parseMappingLines, readProviderForm } from "./provider-form";

describe("the provider schema", () => {
  test("an issuer is an http(s) URL without query, fragment or credentials; anything else is an issue, never a throw", () => {
    expect(issuerSchema.parse(" https://login.example.com/realms/main ")).toBe("https://login.example.com/realms/main");
    for (const bad of [{}, "", "not a url", "https://a b", "ftp://x.example", "https://x.example/?a=1", "https://x.example/#f", "https://u:p@x.example", 5]) {
      expect(issuerSchema.safeParse(bad).success).toBe(false);
    }
  });

  test("defaults for a new provider; openid is always asked for", () => {
    expect(providerCreateSchema.parse({ name: "Okta", issuer: "https://o.example", clientId: "c", clientSecret: "s", scopes: ["groups"] })).toEqual({
      name: "Okta",
      issuer: "https://o.example",
      clientId: "c",
      clientSecret: "s",
      scopes: ["openid", "groups"],
      groupsClaim: "groups",
      roleMappings: [],
      defaultRole: null,
      createUsers: true,
      linkByEmail: false,
    });
  });

  test("a change takes only what is sent: no default fills in a field left out", () => {
    expect(providerPatchSchema.parse({ linkByEmail: true })).toEqual({ linkByEmail: true });
    expect(providerPatchSchema.safeParse({}).success).toBe(false);
  });

  test("the Settings form: scopes as words, mappings as lines, checkboxes, an empty secret kept", () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ name: "Okta", issuer: "https://o.example", clientId: "c", clientSecret: "", scopes: "openid  email,groups", groupsClaim: "", roleMappings: "admins = admin\n\n eng=operator \nbroken", defaultRole: "", linkByEmail: "on" })) {
      form.set(k, v);
    }
    expect(readProviderForm(form)).toEqual({
      name: "Okta",
      issuer: "https://o.example",
      clientId: "c",
      clientSecret: undefined,
      scopes: ["openid", "email", "groups"],
      groupsClaim: undefined,
      roleMappings: [
        { group: "admins", role: "admin" },
        { group: "eng", role: "operator" },
        { group: "broken", role: undefined },
      ],
      defaultRole: null,
      createUsers: false,
      linkByEmail: true,
    });
    const issues = providerCreateSchema.safeParse(readProviderForm(form)).error!.issues.map((i) => [i.path.join("."), i.message]);
    expect(issues).toEqual([
      ["clientSecret", "the client secret the provider gave Hookplane"],
      ["roleMappings.2.role", "a role is viewer, operator or admin"],
    ]);
    expect(parseMappingLines("a=b=c = viewer")).toEqual([{ group: "a=b=c", role: "viewer" }]);
  });

  test("a mapping line may name a project: `group = project:role`; a bad slug is named at its line", () => {
    expect(parseMappingLines("devs = team-a:operator\nadmins = admin\nx = Team A:viewer")).toEqual([
      { group: "devs", project: "team-a", role: "operator" },
      { group: "admins", role: "admin" },
      { group: "x", project: "Team A", role: "viewer" },
    ]);
    const issues = providerCreateSchema
      .safeParse({ name: "Okta", issuer: "https://o.example", clientId: "c", clientSecret: "s", roleMappings: parseMappingLines("devs = team-a:operator\nx = Team A:viewer") })
      .error!.issues.map((i) => [i.path.join("."), i.message]);
    expect(issues).toEqual([["roleMappings.1.project", expect.stringMatching(/lowercase letters, digits and dashes/)]]);
  });
});
