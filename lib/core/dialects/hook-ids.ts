/** Hook ids derived from names or positions: stable across re-imports of the same file. */

const ID_MAX = 100;

/** "Log output" → "log-output", "PagerDuty" → "pagerduty"; empty results fall back. */
export function hookIdFrom(text: string, fallback = "hook"): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[^a-z0-9]+|[-_.]+$/g, "")
    .slice(0, ID_MAX);
  return slug || fallback;
}

/** "PreToolUse" → "pre-tool-use", "after_run" → "after-run": for ids derived from dialect keys. */
export function kebabCase(text: string): string {
  return hookIdFrom(text.replace(/([a-z0-9])([A-Z])/g, "$1-$2").replace(/_/g, "-"), text);
}
