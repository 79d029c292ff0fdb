/**
 * Hook URLs as written, before and after templating: the scheme must be written out (http or
 * https, checked at save), and credentials in the userinfo (`https://bot:${secret:TOKEN}@host/`)
 * are taken out of the URL and sent as a Basic `authorization` header, so no message, redirect or
 * log line that shows the URL can carry them.
 */
import { secretReferences } from "./template";

/** Why `raw` cannot be an outbound URL, judged on the text as saved (templates unrendered). */
export function staticUrlIssue(raw: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    return raw.startsWith("{{")
      ? "write the scheme out (https://… or http://…): a template may fill the rest, not the scheme"
      : "not a URL: expected https://host/path or http://host/path";
  }
  if (scheme !== "http" && scheme !== "https") return `only http and https URLs are allowed (got ${scheme}:)`;
  if (!/^https?:\/\//i.test(raw)) return `expected ${scheme}://host/…`;
  if (raw.includes("{{")) return undefined; // the rest is known when the hook fires
  // A misplaced secret reference is secret-placement's to report; here it stands for a word.
  const { url } = splitUserinfo(raw.replace(/\$\{secret:[A-Za-z0-9_]+\}/g, "secret"));
  try {
    if (!new URL(url).hostname) return "the URL has no host";
  } catch {
    return "not a valid URL";
  }
  return undefined;
}

/** `https://user:pass@host/x` → `https://host/x` and `user:pass`; the userinfo is kept as written. */
export function splitUserinfo(raw: string): { url: string; userinfo?: string; userinfoStart: number; userinfoEnd: number } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(raw);
  if (!m) return { url: raw, userinfoStart: -1, userinfoEnd: -1 };
  const authority = m[2];
  const at = authority.lastIndexOf("@");
  if (at < 0) return { url: raw, userinfoStart: -1, userinfoEnd: -1 };
  const start = m[1].length;
  return { url: m[1] + raw.slice(start + at + 1), userinfo: authority.slice(0, at), userinfoStart: start, userinfoEnd: start + at };
}

/**
 * `user:${secret:TOKEN}` → `Basic base64(user:value)`. The text is split at the first colon outside
 * a secret reference; literal parts are percent-decoded as a URL's userinfo is, secret values are
 * used as they are.
 */
export function basicAuthorization(userinfo: string, secrets: ReadonlyMap<string, string>): string {
  const refs = secretReferences(userinfo);
  let colon = -1;
  for (let i = userinfo.indexOf(":"); i >= 0; i = userinfo.indexOf(":", i + 1)) {
    if (!refs.some((r) => i >= r.start && i < r.end)) {
      colon = i;
      break;
    }
  }
  const part = (from: number, to: number) => {
    let out = "";
    let at = from;
    for (const ref of refs) {
      if (ref.start < from || ref.end > to) continue;
      out += decode(userinfo.slice(at, ref.start)) + (secrets.get(ref.name) ?? "");
      at = ref.end;
    }
    return out + decode(userinfo.slice(at, to));
  };
  const user = colon < 0 ? part(0, userinfo.length) : part(0, colon);
  const pass = colon < 0 ? "" : part(colon + 1, userinfo.length);
  return `Basic ${Buffer.from(`${user}:${pass}`, "utf8").toString("base64")}`;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
