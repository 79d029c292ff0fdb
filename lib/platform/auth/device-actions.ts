"use server";

import { formAction } from "@/lib/platform/api/action";
import { decideDevice, deviceDecisionSchema } from "@/lib/platform/auth/device-flow";

/** The signed-in person approves or denies a `hookplane login` code (any member; the project is theirs to pick). */
export const decideDeviceAction = formAction({ role: "viewer", input: deviceDecisionSchema }, async ({ db, principal, input }) => {
  const decided = await decideDevice(db, principal, input);
  return {
    ok: true,
    message:
      decided.decision === "approve"
        ? `${decided.name} is signed in as you in ${decided.project}. You can close this page; the terminal goes on by itself.`
        : `Denied: ${decided.name} gets nothing.`,
  };
});
