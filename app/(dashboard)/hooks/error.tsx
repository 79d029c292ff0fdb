"use client";

import { buttonClass } from "@/components/ui/button";

export default function HooksError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-6 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
      <h2 className="font-semibold">Could not load hooks</h2>
      <p className="mt-1">{error.digest ? `The error has been logged (reference ${error.digest}).` : error.message}</p>
      <button type="button" onClick={reset} className={buttonClass("secondary", "mt-4")}>
        Try again
      </button>
    </div>
  );
}
