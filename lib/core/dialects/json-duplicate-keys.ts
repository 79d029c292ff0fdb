/**
 * Keys a JSON object holds more than once. JSON.parse (and so every agent that reads its settings
 * with it) keeps the last value and drops the others without a word: a hooks.json with two
 * `"SessionStart"` lists loses the first list's hooks. The importer has to see them to say so (and
 * to carry them), so this reads the text again, after JSON.parse accepted it, and returns every
 * duplicated key with all its values in file order.
 */
import { joinPath, type IssueSink } from "./field-reader";

export type DuplicateKey = { path: string; key: string; values: unknown[] };

/** Every key written more than once in one object, with its values in file order. `text` must be valid JSON. */
export function duplicateJsonKeys(text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  let at = 0;
  const space = () => {
    while (at < text.length && " \t\n\r\uFEFF".includes(text[at])) at++;
  };
  const string = (): string => {
    const start = at++;
    while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (path: string): unknown => {
    space();
    const c = text[at];
    if (c === "{") {
      at++;
      const seen = new Map<string, unknown[]>();
      space();
      if (text[at] === "}") {
        at++;
        return {};
      }
      for (;;) {
        space();
        const key = string();
        space();
        at++; // ':'
        const item = value(joinPath(path, key));
        seen.set(key, [...(seen.get(key) ?? []), item]);
        space();
        if (text[at++] === "}") break;
      }
      for (const [key, values] of seen) if (values.length > 1) found.push({ path: joinPath(path, key), key, values });
      return Object.fromEntries([...seen].map(([key, values]) => [key, values[values.length - 1]]));
    }
    if (c === "[") {
      at++;
      const items: unknown[] = [];
      space();
      if (text[at] === "]") {
        at++;
        return items;
      }
      for (;;) {
        items.push(value(joinPath(path, items.length)));
        space();
        if (text[at++] === "]") break;
      }
      return items;
    }
    if (c === '"') return string();
    const literal = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|^true|^false|^null/.exec(text.slice(at, at + 400))![0];
    at += literal.length;
    return JSON.parse(literal);
  };
  value("");
  return found;
}

/**
 * What a JSON reader of `runtime` (Claude Code, Codex, Loom, ...) does with a key written twice: it
 * keeps the last value. A hook list written twice under `hooks` (two "SessionStart" lists) is what
 * the author wrote both times, so both lists are joined into `root` in file order, and the warning
 * says the runtime itself ran only the last; any other key written twice is warned about (its last
 * value is the one read, as the runtime reads it). `content` must be JSON that parsed to `root`.
 */
export function joinDuplicateHookLists(content: string, root: unknown, runtime: string, sink: IssueSink): void {
  const hooks = (root as { hooks?: unknown } | null)?.hooks;
  const lists = hooks && typeof hooks === "object" && !Array.isArray(hooks) ? (hooks as Record<string, unknown>) : undefined;
  for (const { path, key, values } of duplicateJsonKeys(content.replace(/^\uFEFF/, ""))) {
    if (lists && path === joinPath("hooks", key) && values.every(Array.isArray)) {
      const written = values as unknown[][];
      lists[key] = written.flat();
      sink.warn(
        path,
        `"${key}" is written ${written.length} times in hooks: JSON keeps only the last, so ${runtime} ran only its last list (${written[written.length - 1].length} entr${written[written.length - 1].length === 1 ? "y" : "ies"}); all ${written.length} lists are imported, in file order, as the file says (remove the earlier ones to keep ${runtime}'s behaviour)`,
      );
    } else {
      sink.warn(path, `"${key}" is written ${values.length} times: JSON keeps only the last value, so that one is read (as ${runtime} reads it)`);
    }
  }
}
