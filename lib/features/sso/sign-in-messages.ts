/**
 * What the sign-in page says when single sign-on did not end in a session. The reason travels
 * in the URL as a code (`/sign-in?error=<reason>&provider=<id>`), never as text, so a link cannot
 * make the page say something of its own.
 */
export const SIGN_IN_FAILURES = [
  "flow_expired",
  "state_mismatch",
  "denied",
  "provider_unavailable",
  "provider_error",
  "token_unverified",
  "provider_gone",
  "no_email",
  "no_account",
  "link_refused",
  "account_removed",
  "no_role",
  "unavailable",
  "failed",
] as const;
export type SignInFailure = (typeof SIGN_IN_FAILURES)[number];

export function isSignInFailure(value: unknown): value is SignInFailure {
  return typeof value === "string" && (SIGN_IN_FAILURES as readonly string[]).includes(value);
}

/** `provider`: the provider's name when the link named one that exists. */
export function signInFailureMessage(reason: SignInFailure, provider?: string): string {
  const name = provider ?? "The sign-in provider";
  switch (reason) {
    case "flow_expired":
      return "That sign-in took too long, or was started in another browser or tab. Start again.";
    case "state_mismatch":
      return "The provider's answer did not belong to the sign-in this browser started, so it was refused. Start again.";
    case "denied":
      return `The sign-in was cancelled at ${provider ?? "the provider"}. Start again if that was not what you meant.`;
    case "provider_unavailable":
      return `${name} could not be reached. Try again in a moment; if it keeps happening, an admin should check its issuer URL in Settings.`;
    case "provider_error":
      return `${name} did not complete the sign-in (its answer was refused or could not be verified). Start again; if it keeps happening, an admin should check its client id and secret.`;
    case "token_unverified":
      return `${name}'s answer was not signed with its published keys, so it was refused and nobody was signed in. Start again; if it keeps happening, an admin should check the provider's issuer URL and what stands between it and Hookplane.`;
    case "provider_gone":
      return "That sign-in provider is not configured here (any more). Pick one below.";
    case "no_email":
      return `${name} did not send your email address: an admin must add the "email" scope to it in Settings.`;
    case "no_account":
      return `You have no Hookplane account, and ${provider ?? "this provider"} does not create them: ask an admin to add you.`;
    case "link_refused":
      return `An account with your email already exists but is not linked to ${provider ?? "this provider"}. An admin can allow linking by verified email for it in Settings.`;
    case "account_removed":
      return "Your Hookplane account was removed. Ask an admin if that is a mistake.";
    case "no_role":
      return "You are signed up, but have no access yet: an admin must add you to a project (Settings → Members). Then sign in again.";
    case "unavailable":
      return "Hookplane's database is unavailable; try again in a few seconds.";
    case "failed":
      return "The sign-in failed on our side; it has been logged. Try again.";
  }
}
