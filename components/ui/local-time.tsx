"use client";

import { useEffect, useState } from "react";

/**
 * A time in the reader's own zone and format. A server render cannot know the browser's zone, so it
 * says the time in UTC, labelled so, and the browser rewrites it once mounted: never a local-looking
 * time that is in fact the server's.
 */
export function LocalTime({ value, testId }: { value: string | Date; testId?: string }) {
  const iso = typeof value === "string" ? new Date(value).toISOString() : value.toISOString();
  const [text, setText] = useState(`${iso.slice(0, 16).replace("T", " ")} UTC`);
  useEffect(() => {
    setText(new Date(iso).toLocaleString(undefined, { hour12: false }));
  }, [iso]);
  return (
    <time dateTime={iso} data-testid={testId}>
      {text}
    </time>
  );
}
