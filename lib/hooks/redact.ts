/**
 * Secret values never reach stored output: every stdout, stderr, output and reason that goes into
 * the ledger passes through a redactor built from the secrets the hook resolved.
 */
export type Redactor = (text: string) => string;

export const noRedaction: Redactor = (text) => text;

/** Values shorter than 4 characters are not redacted: replacing "a" everywhere would destroy logs. */
export function createRedactor(secretValues: Iterable<string>): Redactor {
  const values = [...new Set(secretValues)].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
  if (values.length === 0) return noRedaction;
  return (text) => {
    let out = text;
    for (const value of values) if (out.includes(value)) out = out.split(value).join("[REDACTED]");
    return out;
  };
}

/** Caps stored text (ledger rows stay small) and says how much was cut. */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters]`;
}
