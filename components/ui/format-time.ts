/** A time as the reader's browser formats it; no time is "—". */
export function formatTime(value: string | Date | undefined | null): string {
  if (!value) return "—";
  const d = typeof value === "string" ? new Date(value) : value;
  return d.toLocaleString(undefined, { hour12: false });
}
