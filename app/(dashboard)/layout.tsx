import { redirect } from "next/navigation";
import { ProjectElsewhereBanner } from "@/components/project-elsewhere-banner";
import { Sidebar } from "./sidebar";
import { getDatabase } from "@/db/client";
import { countUsers } from "@/db/queries/users";
import { listProjectsOf } from "@/lib/platform/auth/project-service";
import { getCurrentPrincipal, signInPathHere } from "@/lib/platform/auth/current-principal";
import { SessionEndedBanner } from "@/lib/platform/auth/components/session-ended-banner";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const principal = await getCurrentPrincipal();
  if (!principal) {
    const { db } = await getDatabase();
    redirect((await countUsers(db)) === 0 ? "/setup" : await signInPathHere());
  }
  const { db } = await getDatabase();
  const projects = (await listProjectsOf(db, principal)).map((p) => ({ slug: p.slug, name: p.name, role: p.role ?? principal.role }));
  return (
    // A column beside the page from 768 px; below it the sidebar is a top bar and a drawer.
    <div className="min-h-screen md:flex">
      <Sidebar email={principal.label} role={principal.role} projects={projects} project={principal.projectSlug} />
      <main className="min-w-0 flex-1 px-4 py-4 md:px-8 md:py-6">
        <SessionEndedBanner />
        <ProjectElsewhereBanner current={principal.projectSlug} />
        {children}
      </main>
    </div>
  );
}
