"use client";

import { useEffect, useState } from "react";
import { buttonClass } from "@/components/ui/button";

type CopyState = "idle" | "copied" | "selected";

/** Selects the element's text, so the person's own Ctrl+C / ⌘C copies it. */
function selectContents(element: HTMLElement) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/**
 * Copies `text` to the clipboard and says so on the button ("Copied", announced to screen
 * readers). Where the browser has no clipboard for this page (plain http away from localhost is
 * not a secure context) or refuses it, the text in `target` is selected instead for the person to
 * copy, and the button says how.
 */
export function CopyButton({ text, target, label = "Copy", testId }: { text: string; target: () => HTMLElement | null; label?: string; testId?: string }) {
  const [state, setState] = useState<CopyState>("idle");

  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), state === "copied" ? 2_000 : 6_000);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard in this context");
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      const element = target();
      if (element) selectContents(element);
      setState("selected");
    }
  }

  return (
    <button
      type="button"
      onClick={copy}
      className={buttonClass("secondary", "px-2 py-1 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500")}
      aria-label={state === "idle" ? label : undefined}
      data-testid={testId}
      data-state={state}
      title={state === "selected" ? "The text is selected: copy it with Ctrl+C (⌘C on a Mac)" : undefined}
    >
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "selected" ? "Press Ctrl+C" : "Copy"}</span>
    </button>
  );
}
