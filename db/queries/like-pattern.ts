/**
 * `text` as a LIKE pattern that matches it as written: its `%`, `_` and `\` are escaped, so a
 * person's search for "50%" or "a_b" finds those characters, not anything they would stand for.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The LIKE pattern of a value containing `text` anywhere (a free-text search). */
export function containing(text: string): string {
  return `%${likeLiteral(text)}%`;
}
