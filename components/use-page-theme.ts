"use client";

import { useSyncExternalStore } from "react";

/**
 * The theme the page shows: the `dark` class on <html> (set before paint from the saved choice or
 * the system's, and by the theme toggle), watched so widgets drawn outside Tailwind's classes
 * (the toasts) follow it instead of staying light on a dark page.
 */
function subscribe(onChange: () => void) {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  return () => observer.disconnect();
}

export function usePageTheme(): "light" | "dark" {
  return useSyncExternalStore(
    subscribe,
    () => (document.documentElement.classList.contains("dark") ? "dark" : "light"),
    () => "light",
  );
}
