"use server";

import { z } from "zod";
import { formAction } from "@/lib/platform/api/action";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { readProviderForm } from "./provider-form";
import { providerCreateSchema, providerPatchSchema } from "./provider-schema";
import { createProviderAudited, deleteProviderAudited, setPasswordSignInAudited, updateProviderAudited } from "./provider-service";

const REVALIDATE = ["/settings/instance", "/sign-in"];

/** The client secret goes in and never comes back, not even in an error. */
export const createProviderAction = formAction(
  { role: "instance", input: providerCreateSchema, read: readProviderForm, revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const saved = await createProviderAudited(db, getSecretBox(), principal, input);
    return { ok: true, message: `${saved.name} added: its button is on the sign-in page` };
  },
);

/** An empty secret keeps the stored one. */
export const updateProviderAction = formAction(
  { role: "instance", input: z.intersection(z.object({ id: z.uuid("unknown provider") }), providerPatchSchema), read: readProviderForm, revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const { id, ...patch } = input;
    const saved = await updateProviderAudited(db, getSecretBox(), principal, id, patch);
    return { ok: true, message: `${saved.name} saved` };
  },
);

export const deleteProviderAction = formAction(
  { role: "instance", input: z.object({ id: z.uuid("unknown provider") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    await deleteProviderAudited(db, principal, input.id);
    return { ok: true, message: "Provider deleted; the sessions opened through it ended" };
  },
);

export const setPasswordSignInAction = formAction(
  {
    role: "instance",
    input: z.object({ passwordSignIn: z.boolean() }),
    read: (raw) => ({ passwordSignIn: (raw instanceof FormData ? raw.get("passwordSignIn") : raw.passwordSignIn) === "on" }),
    revalidate: REVALIDATE,
  },
  async ({ db, principal, input }) => {
    const state = await setPasswordSignInAudited(db, principal, input);
    return { ok: true, message: state.passwordSignIn ? "Password sign-in is on" : "Password sign-in is off: people sign in through single sign-on" };
  },
);
