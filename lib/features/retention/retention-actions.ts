"use server";

import { formAction } from "@/lib/platform/api/action";
import { retentionSettingsFromForm, retentionSettingsSchema, setRetentionSettingsAudited } from "@/lib/features/retention/retention-settings";

export const saveRetentionAction = formAction(
  {
    role: "instance",
    input: retentionSettingsSchema,
    read: (raw) => retentionSettingsFromForm(raw instanceof FormData ? raw : new FormData()),
    revalidate: ["/settings/server"],
  },
  async ({ db, principal, input }) => {
    await setRetentionSettingsAudited(db, principal, input);
    return { ok: true, message: "Retention saved: the next pass (within the hour) applies it" };
  },
);
