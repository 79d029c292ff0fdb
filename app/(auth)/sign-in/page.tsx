import { redirect } from "next/navigation";
import { z } from "zod";
import { signInAction } from "@/lib/platform/auth/auth-actions";
import { CredentialsForm } from "@/lib/platform/auth/components/credentials-form";
import { getDatabase } from "@/db/client";
import { getOidcProvider } from "@/db/queries/oidc-providers";
import { countUsers } from "@/db/queries/users";
import { passwordSignInState } from "@/lib/platform/auth/password-sign-in";
import { safeRedirectPath } from "@/lib/platform/auth/redirect-target";
import { SsoButtons } from "@/lib/features/sso/components/sso-buttons";
import { listSignInProviders } from "@/lib/features/sso/provider-service";
import { isSignInFailure, signInFailureMessage } from "@/lib/features/sso/sign-in-messages";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

type Search = { next?: string; error?: string; provider?: string };

/** The words for a failed single sign-on, naming the provider when the link names one that exists. */
async function failureMessage(db: Awaited<ReturnType<typeof getDatabase>>["db"], search: Search): Promise<string | undefined> {
  if (!isSignInFailure(search.error)) return undefined;
  const id = z.uuid().safeParse(search.provider);
  const provider = id.success ? await getOidcProvider(db, { id: id.data }) : undefined;
  return signInFailureMessage(search.error, provider?.name);
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { db } = await getDatabase();
  if ((await countUsers(db)) === 0) redirect("/setup");
  const search = await searchParams;
  // Only a path of ours is carried into the form; the action checks it again.
  const target = search.next === undefined ? undefined : safeRedirectPath(search.next, "/");
  const [providers, passwords, failure] = await Promise.all([listSignInProviders(db), passwordSignInState(db), failureMessage(db, search)]);
  const showPasswords = passwords.enabled || passwords.breakGlass;
  return (
    <>
      <h1 className="mb-6 text-xl font-semibold">Sign in</h1>
      {failure && (
        <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="sign-in-error">
          {failure}
        </p>
      )}
      <SsoButtons providers={providers} next={target} />
      {providers.length > 0 && showPasswords && <p className="my-4 text-center text-xs text-zinc-500">or with your password</p>}
      {showPasswords ? (
        <>
          {!passwords.enabled && (
            <p className="mb-3 text-xs text-amber-700 dark:text-amber-400" data-testid="break-glass-note">
              Password sign-in is off; the server&apos;s break-glass switch lets admins in with their password.
            </p>
          )}
          <CredentialsForm action={signInAction} submitLabel="Sign in" next={target} testId="sign-in-form" />
        </>
      ) : (
        <p className="mt-4 text-xs text-zinc-500" data-testid="passwords-off">
          Password sign-in is turned off here.
        </p>
      )}
    </>
  );
}
