"use client";

import { clsx } from "clsx";
import { createContext, useContext, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";

export const inputClass =
  "block w-full min-w-0 rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-zinc-400 disabled:bg-zinc-100 disabled:text-zinc-500 aria-invalid:border-red-500 dark:border-zinc-700 dark:bg-zinc-900 dark:disabled:bg-zinc-800 dark:aria-invalid:border-red-400";

/** What a Field tells the control inside it: whether it is invalid and which texts describe it. */
interface FieldState {
  invalid: boolean;
  describedBy?: string;
}

const FieldContext = createContext<FieldState | undefined>(undefined);

/**
 * A label, its control, and a hint or the problem with it. The control (TextInput, TextArea,
 * Select) is marked aria-invalid and described by the error, so the form's "first invalid field"
 * is found in the page itself (use-action-form.ts) whichever form draws it.
 */
export function Field({
  label,
  hint,
  error,
  htmlFor,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  htmlFor: string;
  children: ReactNode;
}) {
  const hintId = hint && !error ? `${htmlFor}-hint` : undefined;
  const errorId = error ? `${htmlFor}-error` : undefined;
  return (
    <div className="min-w-0 space-y-1">
      <label htmlFor={htmlFor} className="block text-sm font-medium">
        {label}
      </label>
      <FieldContext.Provider value={{ invalid: Boolean(error), describedBy: errorId ?? hintId }}>{children}</FieldContext.Provider>
      {hintId && (
        <p id={hintId} className="text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="text-xs text-red-600 dark:text-red-400" role="alert" data-testid={`error-${htmlFor}`} data-error-for={htmlFor}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The aria attributes a control takes from its Field; its own props win. */
function useFieldAria(props: { "aria-invalid"?: unknown; "aria-describedby"?: string }) {
  const field = useContext(FieldContext);
  return {
    "aria-invalid": (props["aria-invalid"] as boolean | undefined) ?? (field?.invalid || undefined),
    "aria-describedby": props["aria-describedby"] ?? field?.describedBy,
  };
}

export function TextInput({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={clsx(inputClass, className)} {...props} {...useFieldAria(props)} />;
}

export function TextArea({ className, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea className={clsx(inputClass, "font-mono", className)} {...props} {...useFieldAria(props)} />;
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={clsx(inputClass, className)} {...props} {...useFieldAria(props)} />;
}

/** A choice of a `<select>`: a string is its own value and label. */
export type Choice = string | { value: string; label: string };

/** The `<option>`s of a `<select>`, one a choice, in order. */
export function Options({ choices }: { choices: readonly Choice[] }) {
  return choices.map((choice) => {
    const { value, label } = typeof choice === "string" ? { value: choice, label: choice } : choice;
    return (
      <option key={value} value={value}>
        {label}
      </option>
    );
  });
}
