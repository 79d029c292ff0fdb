/**
 * Whether people may sign in with a password. An admin turns it off once single sign-on works
 * (lib/features/sso/auth-settings.ts says when they may); off, the sign-in page shows only the
 * providers' buttons and a password sign-in is refused with a readable message. API tokens are
 * not affected. `HOOKPLANE_PASSWORD_BREAK_GLASS=1`, set by whoever runs the server, lets admins'
 * passwords work again while single sign-on is broken.
 */
import type { Db } from "@/db/client";
import { getSetting, setSetting } from "@/db/queries/settings";
import { AppError } from "@/lib/platform/api/app-error";
import { getConfig } from "@/lib/platform/config/config";

export const PASSWORD_SIGN_IN_KEY = "password_sign_in";

export interface PasswordSignInState {
  /** The admin's setting (on until turned off). */
  enabled: boolean;
  /** HOOKPLANE_PASSWORD_BREAK_GLASS: admins' passwords work whatever the setting. */
  breakGlass: boolean;
}

export async function passwordSignInState(db: Db): Promise<PasswordSignInState> {
  const stored = await getSetting<boolean>(db, { key: PASSWORD_SIGN_IN_KEY });
  return { enabled: stored !== false, breakGlass: getConfig().HOOKPLANE_PASSWORD_BREAK_GLASS };
}

export async function storePasswordSignIn(db: Db, params: { enabled: boolean }): Promise<void> {
  await setSetting(db, { key: PASSWORD_SIGN_IN_KEY, value: params.enabled });
}

export function passwordSignInOff(): AppError {
  return new AppError("password_sign_in_off", "Password sign-in is turned off here: sign in with your organization's single sign-on.");
}
