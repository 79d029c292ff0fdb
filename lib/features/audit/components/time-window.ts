/**
 * Time window presets of the audit filters. The URL keeps the preset (`window=week`), not dates,
 * so a shared "this week" link still means this week when it is opened later.
 */
export const TIME_WINDOWS = [
  { value: "", label: "Any time" },
  { value: "24h", label: "Last 24 hours" },
  { value: "today", label: "Today" },
  { value: "week", label: "This week" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
] as const;

const HOUR_MS = 3_600_000;

/** When the window starts, in the browser's time zone; undefined for "any time". */
export function timeWindowStart(window: string, now: Date): Date | undefined {
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  switch (window) {
    case "24h":
      return new Date(now.getTime() - 24 * HOUR_MS);
    case "today":
      return startOfToday;
    case "week": {
      // Weeks start on Monday (ISO 8601).
      const sinceMonday = (startOfToday.getDay() + 6) % 7;
      return new Date(startOfToday.getFullYear(), startOfToday.getMonth(), startOfToday.getDate() - sinceMonday);
    }
    case "7d":
      return new Date(now.getTime() - 7 * 24 * HOUR_MS);
    case "30d":
      return new Date(now.getTime() - 30 * 24 * HOUR_MS);
    default:
      return undefined;
  }
}
