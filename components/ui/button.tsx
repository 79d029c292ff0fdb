import { clsx } from "clsx";
import type { ComponentProps } from "react";

const VARIANTS = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-500 disabled:bg-indigo-400",
  secondary:
    "border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800",
  danger: "bg-red-600 text-white hover:bg-red-500 disabled:bg-red-400",
  ghost: "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
} as const;

export function buttonClass(variant: keyof typeof VARIANTS = "primary", extra?: string) {
  return clsx(
    "inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-medium transition-colors disabled:cursor-not-allowed",
    VARIANTS[variant],
    extra,
  );
}

export function Button({
  variant = "primary",
  className,
  ...props
}: ComponentProps<"button"> & { variant?: keyof typeof VARIANTS }) {
  return <button className={buttonClass(variant, className)} {...props} />;
}

/** A form's submit button, disabled while its action runs and saying so (`pendingLabel`; else its label). */
export function SubmitButton({ pending, label, pendingLabel, testId, disabled }: { pending: boolean; label: string; pendingLabel?: string; testId?: string; disabled?: boolean }) {
  return (
    <Button type="submit" disabled={pending || disabled} data-testid={testId}>
      {pending ? (pendingLabel ?? label) : label}
    </Button>
  );
}
