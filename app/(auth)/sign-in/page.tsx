import { redirect } from "next/navigation";
import { signInAction } from "@/lib/platform/auth/auth-actions";
import { CredentialsForm } from "@/lib/platform/auth/components/credentials-form";
import { getDatabase } from "@/db/client";
import { countUsers } from "@/db/queries/users";
import { safeRedirectPath } from "@/lib/platform/auth/redirect-target";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { db } = await getDatabase();
  if ((await countUsers(db)) === 0) redirect("/setup");
  const { next } = await searchParams;
  // Only a path of ours is carried into the form; the action checks it again.
  const target = next === undefined ? undefined : safeRedirectPath(next, "/agents");
  return (
    <>
      <h1 className="mb-6 text-xl font-semibold">Sign in</h1>
      <CredentialsForm action={signInAction} submitLabel="Sign in" next={target} testId="sign-in-form" />
    </>
  );
}
