"use client";

import { useEffect, useState } from "react";
import { signInPath } from "@/lib/platform/auth/redirect-target";
import { PROJECT_ENDED_EVENT, SESSION_ENDED_EVENT } from "@/lib/platform/stream/use-live-socket";

/**
 * Says so at once when the server ended this page's access (a live socket closed): with 4401 the
 * session itself (signed out in another tab, removed or demoted by an admin, which ends their
 * sessions, or a later single sign-on with fewer groups); with 4404 only this page's project (it was
 * deleted), the session still opening the person's other projects. Not a redirect: a sign-out in this tab is already on its way to the sign-in page.
 */
export function SessionEndedBanner() {
  const [ended, setEnded] = useState<"session" | "project" | undefined>();
  useEffect(() => {
    const onSession = () => setEnded("session");
    const onProject = () => setEnded((was) => was ?? "project");
    window.addEventListener(SESSION_ENDED_EVENT, onSession);
    window.addEventListener(PROJECT_ENDED_EVENT, onProject);
    return () => {
      window.removeEventListener(SESSION_ENDED_EVENT, onSession);
      window.removeEventListener(PROJECT_ENDED_EVENT, onProject);
    };
  }, []);
  if (!ended) return null;
  const here = typeof location === "undefined" ? "/" : `${location.pathname}${location.search}`;
  return (
    <div role="alert" className="mb-4 rounded-md bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100" data-testid="session-ended">
      {ended === "session" ? (
        <>
          Your session has ended (you were signed out, or your access changed). Nothing on this page updates any more.{" "}
          <a href={signInPath(here)} className="font-medium underline">
            Sign in again
          </a>
        </>
      ) : (
        <>
          This project is no longer open to you (it was deleted, or you were taken out of it). Nothing on this page updates any more.{" "}
          {/* A full load: the server picks one of the projects still open to you. */}
          <a href="/" className="font-medium underline">
            Go to your projects
          </a>
        </>
      )}
    </div>
  );
}
