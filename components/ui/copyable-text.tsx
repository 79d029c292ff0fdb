"use client";

import { clsx } from "clsx";
import { useRef } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/**
 * One value to copy exactly (a secret shown once, an id): the text, wrapped anywhere so a long
 * token never widens the page, with a copy button beside it. `inline`: within a line of text,
 * else a box of its own.
 */
export function CopyableText({ text, label, testId, inline = false }: { text: string; label: string; testId?: string; inline?: boolean }) {
  const code = useRef<HTMLElement>(null);
  const content = (
    <>
      <code ref={code} className={clsx("min-w-0 break-all font-mono text-xs", !inline && "flex-1")} data-testid={testId}>
        {text}
      </code>
      <CopyButton text={text} target={() => code.current} label={label} testId={testId && `${testId}-copy`} />
    </>
  );
  if (inline) return <span className="inline-flex min-w-0 max-w-full items-center gap-1.5 align-middle">{content}</span>;
  return <div className="flex items-start gap-2 rounded-md bg-zinc-100 p-3 dark:bg-zinc-800">{content}</div>;
}
