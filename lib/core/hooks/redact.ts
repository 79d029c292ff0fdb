/**
 * Secret values never reach stored output: every stdout, stderr, output and reason that goes into
 * the ledger passes through a redactor built from the secrets the hook resolved. This is the second
 * line (secret-placement.ts keeps values out of stored text in the first place), so it looks for
 * the forms a value takes when something echoes it back: as is, in any letter case (a URL host is
 * lower-cased), base64 and base64url (at each of the three byte alignments, so a value inside a
 * longer encoded text is found too), hex, URL-encoded and JSON-escaped.
 */
export type Redactor = (text: string) => string;

export const noRedaction: Redactor = (text) => text;

const MARK = "[REDACTED]";
/** Values shorter than 4 characters are not redacted: replacing "a" everywhere would destroy logs. */
const MIN_VALUE = 4;
/** An encoded fragment shorter than this could match ordinary text by chance. */
const MIN_FRAGMENT = 6;

export function createRedactor(secretValues: Iterable<string>): Redactor {
  const forms = new Set<string>();
  for (const value of secretValues) {
    if (value.length < MIN_VALUE) continue;
    for (const form of encodedForms(value)) if (form.length >= MIN_VALUE) forms.add(form);
  }
  if (forms.size === 0) return noRedaction;
  // Longest first, so a form that contains another is replaced whole.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(alternatives.join("|"), "giu");
  return (text) => text.replace(pattern, MARK);
}

/** The texts a value becomes when it is echoed back encoded. */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = [value, bytes.toString("hex")];
  // URL encoders disagree on which characters they leave alone: JavaScript's two, HTML forms
  // (URLSearchParams, `+` for space) and the path style that keeps `/` (Python's quote).
  try {
    const uri = encodeURIComponent(value);
    forms.push(uri, uri.replace(/%20/g, "+"), uri.replace(/%2F/g, "/"), encodeURI(value));
    forms.push(new URLSearchParams({ v: value }).toString().slice(2));
  } catch {
    // A lone surrogate has no URL encoding; the other forms still apply.
  }
  forms.push(JSON.stringify(value).slice(1, -1));
  for (const shift of [0, 1, 2]) {
    const fragment = base64Fragment(bytes, shift);
    if (fragment.length >= MIN_FRAGMENT || (shift === 0 && fragment.length >= MIN_VALUE)) {
      forms.push(fragment, fragment.replace(/\+/g, "-").replace(/\//g, "_"));
    }
  }
  return forms;
}

/**
 * The base64 characters that depend on `bytes` alone when they follow `shift` other bytes: what
 * any base64 text containing the value at that alignment must contain.
 */
function base64Fragment(bytes: Buffer, shift: number): string {
  const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64").replace(/=+$/, "");
  const first = Math.ceil((shift * 8) / 6);
  const last = Math.floor(((shift + bytes.length) * 8) / 6); // exclusive: the final partial character depends on what follows
  return encoded.slice(first, last);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** Caps stored text (ledger rows stay small) and says how much was cut. */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters]`;
}
