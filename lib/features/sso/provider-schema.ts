/**
 * What an admin sends to configure a single sign-on provider (API and Settings alike). The client
 * secret goes in and is never sent back (provider-service.ts).
 */
import { z } from "zod";
import { ROLES } from "@/db/schema";
import { projectSlugSchema } from "@/lib/platform/auth/project-slug";

/** RFC 6749 scope-token: printable ASCII but space, `"` and `\`. */
const scopeSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, "a scope is one word of printable characters (openid, email, groups)");

export const issuerSchema = z
  .string({ error: "the issuer URL, e.g. https://login.example.com/realms/main" })
  .trim()
  .max(500)
  .pipe(z.url({ protocol: /^https?$/, error: "the issuer is an http(s) URL, e.g. https://login.example.com/realms/main" }))
  // zod runs this even after the URL check failed (a non-fatal issue): an unparsable value is already reported.
  .refine((value) => {
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return !url.search && !url.hash && !url.username && !url.password;
  }, "the issuer URL has no query, fragment or credentials");

/** `project`: the slug of the project whose role the group gives; none: the default project. */
export const groupRoleMappingSchema = z.object({
  group: z.string().trim().min(1, "name the group").max(256),
  role: z.enum(ROLES, { error: "a role is viewer, operator or admin" }),
  project: projectSlugSchema.optional(),
});

const NAME = "name the provider: people see it on the button (Sign in with …)";
const CLIENT_ID = "the client id the provider gave Hookplane";
const CLIENT_SECRET = "the client secret the provider gave Hookplane";

const fields = {
  name: z.string({ error: NAME }).trim().min(1, NAME).max(60),
  issuer: issuerSchema,
  clientId: z.string({ error: CLIENT_ID }).trim().min(1, CLIENT_ID).max(512),
  clientSecret: z.string({ error: CLIENT_SECRET }).min(1, CLIENT_SECRET).max(4096),
  /** `openid` is always requested, listed or not. */
  scopes: z
    .array(scopeSchema)
    .max(30)
    .transform((scopes) => [...new Set(["openid", ...scopes])]),
  groupsClaim: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^\S+$/, "a claim name has no spaces (groups, roles, https://example.com/groups)"),
  roleMappings: z.array(groupRoleMappingSchema).max(200),
  /** The default project's role of a person no mapping of it names; null: none until an admin gives one. */
  defaultRole: z.enum(ROLES, { error: "a role is viewer, operator or admin, or null for no access" }).nullable(),
  createUsers: z.boolean(),
  linkByEmail: z.boolean(),
};

export const DEFAULT_SCOPES = ["openid", "email", "profile"];

export const providerCreateSchema = z.object({
  ...fields,
  scopes: fields.scopes.default(DEFAULT_SCOPES),
  groupsClaim: fields.groupsClaim.default("groups"),
  roleMappings: fields.roleMappings.default([]),
  defaultRole: fields.defaultRole.default(null),
  createUsers: fields.createUsers.default(true),
  linkByEmail: fields.linkByEmail.default(false),
});

/** A change: only what is sent changes; `clientSecret` replaces the stored one. */
export const providerPatchSchema = z
  .object(Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.optional()])) as { [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]> })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), "send at least one field to change");

export type ProviderCreate = z.infer<typeof providerCreateSchema>;
export type ProviderPatch = z.infer<typeof providerPatchSchema>;
