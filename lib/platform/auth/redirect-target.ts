/**
 * Where sign-in may send the browser afterwards: a path on this site, never another origin.
 * Browsers read `/\evil`, `/<TAB>/evil` and `//evil` as `//evil` (backslash is a slash, tabs and
 * newlines are dropped), so a target with a backslash or a control character is refused outright,
 * and what is left must resolve against our origin to our origin.
 */
const BASE = "http://hookplane.invalid";

export function safeRedirectPath(raw: unknown, fallback = "/"): string {
  if (typeof raw !== "string" || !raw.startsWith("/") || raw.startsWith("//")) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return fallback;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
