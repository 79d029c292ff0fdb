import type { ReactNode } from "react";

/** A part of a page under its own heading, which names it for assistive technology (`headingId`). */
export function PageSection({ headingId, title, children }: { headingId: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}
