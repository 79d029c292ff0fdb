import { redirect } from "next/navigation";
import { setupAction } from "@/lib/platform/auth/auth-actions";
import { CredentialsForm } from "@/lib/platform/auth/components/credentials-form";
import { getDatabase } from "@/db/client";
import { countUsers } from "@/db/queries/users";

export const dynamic = "force-dynamic";
export const metadata = { title: "Set up" };

export default async function SetupPage() {
  const { db } = await getDatabase();
  if ((await countUsers(db)) > 0) redirect("/sign-in");
  return (
    <>
      <h1 className="text-xl font-semibold">Create the first admin</h1>
      <p className="mb-6 mt-1 text-sm text-zinc-500">This account can invite others and change every setting.</p>
      <CredentialsForm action={setupAction} submitLabel="Create admin account" testId="setup-form" />
    </>
  );
}
