"use client";

import { useRef } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/**
 * Text to copy whole (a command, a settings file): shown as it will be pasted, with a copy button.
 * `label` names it for the button ("Copy the login command"), since a page has several.
 */
export function CommandBlock({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const code = useRef<HTMLElement>(null);
  return (
    <div className="relative rounded-md border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950" data-testid={testId}>
      <pre className="max-h-96 overflow-auto p-3 pr-24 font-mono text-xs leading-relaxed text-zinc-800 dark:text-zinc-200">
        <code ref={code} data-testid={testId && `${testId}-text`}>
          {text}
        </code>
      </pre>
      <div className="absolute right-2 top-2">
        <CopyButton text={text} target={() => code.current} label={label} testId={testId && `${testId}-copy`} />
      </div>
    </div>
  );
}
