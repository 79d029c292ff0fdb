"use client";

import { useEffect, useState } from "react";

/**
 * The browser's clock, ticking every `intervalMs` while `ticking`; undefined on the server render and
 * the first paint, so a running duration never differs between the two (no hydration mismatch).
 */
export function useNow(intervalMs: number, ticking: boolean): number | undefined {
  const [now, setNow] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (!ticking) return;
    const first = setTimeout(() => setNow(Date.now()), 0);
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [intervalMs, ticking]);
  return now;
}
