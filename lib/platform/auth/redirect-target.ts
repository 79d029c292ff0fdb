/**
 * Where a sign-in may send the browser afterwards: the one rule for every `next` (the password
 * sign-in action and page, single sign-on's start and callback, the session-ended banner, the
 * device page's return through sign-in). A path on this site, never another origin.
 *
 * A path can say more than it shows: browsers read `\` as `/` and drop tabs and newlines, `/./`
 * and `/../` collapse (spelled `%2e` too), and a proxy or a later hop may decode `%2f` and `%5c`.
 * So `/..//evil.example`, `/.%2e/%2e%2e//evil`, `/%2f/evil`, `/%5c/evil` and `/%09/evil` all end
 * as `//evil…`: another origin. The value is resolved first (parsed as a URL against a fixed
 * origin, which resolves dot segments; then its path percent-decoded until nothing changes and
 * resolved again), and each form must be a same-origin absolute path: one leading `/`, never `//`
 * or `/\`, no scheme, no backslash, no control character. Anything else is the fallback.
 */
const ORIGIN = "http://hookplane.invalid";
/** Longer than any path of ours with its query: refused, not parsed. */
export const MAX_REDIRECT_LENGTH = 2048;
/** One leading `/` not followed by `/` or `\`; no `\` and no control character (C0, DEL, C1) anywhere. */
const LOCAL_PATH = /^\/(?![/\\])[^\\\u0000-\u001f\u007f-\u009f]*$/;
/** Percent-encoded ASCII: what a decoder can turn into a slash, a backslash, a dot or a control character. */
const ENCODED_ASCII = /%([0-7][0-9a-f])/gi;
const MAX_DECODING_ROUNDS = 4;

/** The URL `path` names relative to our origin, if it stays on it. */
function resolve(path: string): URL | undefined {
  try {
    const url = new URL(path, ORIGIN);
    return url.origin === ORIGIN ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `path` decoded until it stops changing (`%252f` is a `/` two decoders later); undefined if it never does. */
function fullyDecoded(path: string): string | undefined {
  for (let round = 0; round < MAX_DECODING_ROUNDS; round++) {
    const decoded = path.replace(ENCODED_ASCII, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (decoded === path) return path;
    path = decoded;
  }
  return undefined;
}

function isLocalPath(path: string | undefined): path is string {
  return path !== undefined && LOCAL_PATH.test(path) && LOCAL_PATH.test(resolve(path)?.pathname ?? "//");
}

/** `raw` as a path of ours (dot segments resolved, characters URL-encoded), or `fallback`. */
export function safeRedirectPath(raw: unknown, fallback = "/"): string {
  if (typeof raw !== "string" || raw.length > MAX_REDIRECT_LENGTH || !isLocalPath(raw)) return fallback;
  const url = resolve(raw)!;
  if (!isLocalPath(fullyDecoded(url.pathname))) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page, coming back to `next` afterwards when it is a path of ours. */
export function signInPath(next?: string): string {
  const target = safeRedirectPath(next, "");
  // The home page is where signing in lands anyway: no next for it.
  return target && target !== "/" ? `/sign-in?next=${encodeURIComponent(target)}` : "/sign-in";
}
