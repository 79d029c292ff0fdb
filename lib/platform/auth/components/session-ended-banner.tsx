"use client";

import { useEffect, useState } from "react";
import { SESSION_ENDED_EVENT } from "@/lib/platform/stream/use-live-socket";

/**
 * Says so at once when the server ended this page's session (a live socket closed with 4401):
 * signed out in another tab, removed or demoted by an admin, or by a later single sign-on with
 * fewer groups. Not a redirect: a sign-out in this tab is already on its way to the sign-in page.
 */
export function SessionEndedBanner() {
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    const onEnded = () => setEnded(true);
    window.addEventListener(SESSION_ENDED_EVENT, onEnded);
    return () => window.removeEventListener(SESSION_ENDED_EVENT, onEnded);
  }, []);
  if (!ended) return null;
  const next = typeof location === "undefined" ? "/agents" : `${location.pathname}${location.search}`;
  return (
    <div role="alert" className="mb-4 rounded-md bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100" data-testid="session-ended">
      Your session has ended (you were signed out, or your access changed). Nothing on this page updates any more.{" "}
      <a href={`/sign-in?next=${encodeURIComponent(next)}`} className="font-medium underline">
        Sign in again
      </a>
    </div>
  );
}
