/**
 * Host names and allow-list patterns, compared the one way every check uses. Pure string code
 * (no node: imports), so the hook editor in the browser can check a secret's hosts too.
 */

/** `[::1]` → `::1`, `Example.COM.` → `example.com`: the form every host comparison uses. */
export function normalizeHost(host: string): string {
  let h = host;
  if (h.charCodeAt(0) === 91 /* [ */) h = h.slice(1, h.endsWith("]") ? -1 : undefined);
  while (h.endsWith(".")) h = h.slice(0, -1);
  return /[A-Z]/.test(h) ? h.toLowerCase() : h;
}

/** `api.example.com` exactly, `*.example.com` any subdomain (not the apex), `*` every host. */
export function hostMatches(host: string, pattern: string): boolean {
  return matchesNormalized(normalizeHost(host), normalizeHost(pattern.trim()));
}

function matchesNormalized(h: string, p: string): boolean {
  if (p === "*") return true;
  return p.startsWith("*.") ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
}

// Lists are read on every request: normalized once per list (lists are treated as immutable).
const normalizedLists = new WeakMap<readonly string[], string[]>();

export function hostMatchesAny(host: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return false;
  let normalized = normalizedLists.get(patterns);
  if (!normalized) normalizedLists.set(patterns, (normalized = patterns.map((p) => normalizeHost(p.trim()))));
  const h = normalizeHost(host);
  for (const p of normalized) if (matchesNormalized(h, p)) return true;
  return false;
}
