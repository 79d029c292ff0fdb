"use client";

import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";
import { setPasswordSignInAction } from "@/lib/features/sso/sso-actions";

/** Turns password sign-in on or off; a refusal (no provider, not signed in through one) says why. */
export function PasswordSignInSwitch({ enabled, breakGlass }: { enabled: boolean; breakGlass: boolean }) {
  const { state, pending, formProps } = useActionForm(setPasswordSignInAction);
  return (
    <form {...formProps} className="space-y-2" data-testid="password-sign-in-switch">
      <p className="text-sm" data-testid="password-sign-in-state">
        Password sign-in is <strong>{enabled ? "on" : "off"}</strong>
        {!enabled && breakGlass && " — but HOOKPLANE_PASSWORD_BREAK_GLASS lets admins sign in with their password (audited)"}.
      </p>
      {!enabled && <input type="hidden" name="passwordSignIn" value="on" />}
      <Button type="submit" variant="secondary" disabled={pending} data-testid="toggle-password-sign-in">
        {enabled ? "Turn password sign-in off" : "Turn password sign-in on"}
      </Button>
      <FormMessage state={state} />
    </form>
  );
}
