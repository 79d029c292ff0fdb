"use client";

import { buttonClass } from "@/components/ui/button";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="mx-auto max-w-lg py-24 text-center" role="alert">
      <h1 className="text-xl font-semibold">This page ran into a problem</h1>
      <p className="mt-2 text-sm text-zinc-500">
        {error.message && !error.digest ? error.message : "The error has been logged on the server."}
        {error.digest && <span className="mt-1 block font-mono text-xs">Reference: {error.digest}</span>}
      </p>
      <button type="button" onClick={reset} className={buttonClass("primary", "mt-6")}>
        Try again
      </button>
    </div>
  );
}
