import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { DeviceApprovalForm } from "@/lib/platform/auth/components/device-approval-form";
import { getCurrentPrincipal } from "@/lib/platform/auth/current-principal";
import { describePendingDevice } from "@/lib/platform/auth/device-flow";
import { listProjectsOf } from "@/lib/platform/auth/project-service";
import { signInPath } from "@/lib/platform/auth/redirect-target";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in a machine" };

/** Where `hookplane login` sends a person: signed in (single sign-on applies), they approve the code for a machine of theirs. */
export default async function DevicePage({ searchParams }: { searchParams: Promise<{ code?: string }> }) {
  const { code } = await searchParams;
  const here = `/device${code ? `?code=${encodeURIComponent(code)}` : ""}`;
  const principal = await getCurrentPrincipal();
  if (!principal) redirect(signInPath(here));
  const { db } = await getDatabase();
  const [pending, projects] = await Promise.all([code ? describePendingDevice(db, code) : undefined, listProjectsOf(db, principal)]);
  return (
    <>
      <h1 className="mb-2 text-xl font-semibold">Sign in a machine</h1>
      <p className="mb-6 text-sm text-zinc-500">
        As {principal.label}: the machine&apos;s coding agents get a bridge credential of yours, for their hook events only.
      </p>
      {code && !pending && (
        <p role="alert" className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="device-unknown">
          No pending login has this code: it may have expired (after 10 minutes) or been used. Run hookplane login again.
        </p>
      )}
      <DeviceApprovalForm code={pending ? code : undefined} machine={pending?.name} projects={projects} currentProject={principal.projectId} />
    </>
  );
}
