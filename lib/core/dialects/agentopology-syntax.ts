/**
 * A reader for AgenTopology's `.at` files, lazy the way its own parser is: it reads the items of
 * the blocks it was asked to understand (`isStructured`) and skips every other block by counting
 * braces, so the free text of `prompt { … }`, `flow { a -> b [when x.y == z] }`, `schemas { … }`
 * and the like is kept raw and never tokenized. Fields are `key: value` lines; a value is the rest
 * of the line (`low | medium | high`, `secret "vault://…"`, `100/min`), one "string", a `[list]`
 * (which may span lines) or a `{ map }` (kept raw, like `outputs: { risk: low | high }`).
 *
 * Also accepted: several fields on the line that opened their block (`agent a { model: sonnet
 * tools: [Read] }`, as the seed's examples write it), `#` comments at the start of a line or after
 * whitespace (AgenTopology's rule, so `a#b` is a value), and `//` comments after whitespace.
 * A line that is neither a field nor a block (`import x from ./a.at`, `include "./f.at"`) is
 * returned as a `line` item for the caller to report.
 */

export type AtValue =
  | { kind: "scalar"; text: string; quoted: boolean; line: number }
  | { kind: "list"; items: AtValue[]; line: number }
  /** `{ … }` after a key: its text, unparsed. */
  | { kind: "map"; text: string; line: number };

export type AtField = { kind: "field"; key: string; value: AtValue; line: number };
export type AtBlock = {
  kind: "block";
  /** The words before `{`: `agent deployer`, `topology name [tags]`, `hook log-start`, `log-start`. */
  header: string[];
  /** Parsed items, or null for a raw block (see `raw`). */
  items: AtItem[] | null;
  /** The body of a raw block, as written. */
  raw: string;
  line: number;
};
/** A line that is neither `key: value` nor `header {`. */
export type AtLine = { kind: "line"; text: string; line: number };
export type AtItem = AtField | AtBlock | AtLine;

export class AtSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${message}`);
  }
}

/** Which blocks have fields and nested blocks; `parentKind` is the enclosing block's first word ("root" at the top). */
export type BodyRule = (header: string[], parentKind: string) => boolean;

const KEY_CHAR = /[A-Za-z0-9_.$@*?+\/-]/;
const SPACE = /[ \t\r\f\v\u00a0\ufeff]/;
/** `word:` ahead on an inline block's line: where the previous field's value stops. */
const NEXT_KEY = /^[ \t]+[A-Za-z_][A-Za-z0-9_?-]*[ \t]*:(?=[ \t"[{]|$)/;

export function parseAt(source: string, isStructured: BodyRule): AtItem[] {
  const src = source.startsWith("\ufeff") ? source.slice(1) : source;
  let pos = 0;
  let line = 1;
  let lineStart = 0;

  const peek = (offset = 0): string | undefined => src[pos + offset];
  const advance = (): string => {
    const ch = src[pos++];
    if (ch === "\n") {
      line++;
      lineStart = pos;
    }
    return ch;
  };
  const column = () => pos - lineStart + 1;
  const error = (message: string, at?: { line: number; column: number }) =>
    new AtSyntaxError(message, at?.line ?? line, at?.column ?? column());
  const missingBrace = (opened: { line: number; column: number }) =>
    error(`unexpected end of file (a \`}\` is missing for the block opened on line ${opened.line})`);

  /** A comment starts here: `#` or `//` at the start of a line or after whitespace or a bracket. */
  const atComment = (): boolean => {
    const ch = peek();
    if (ch !== "#" && !(ch === "/" && peek(1) === "/")) return false;
    const before = pos === 0 ? "\n" : src[pos - 1];
    return /\s|[{[,;]/.test(before);
  };
  const skipToEndOfLine = () => {
    while (pos < src.length && src[pos] !== "\n") pos++;
  };
  /** Spaces, comments, and (with `newlines`) line breaks, `,` and `;` between items. */
  const skipBlank = (newlines: boolean) => {
    while (pos < src.length) {
      const ch = src[pos];
      if (SPACE.test(ch)) pos++;
      else if (atComment()) skipToEndOfLine();
      else if (newlines && (ch === "\n" || ch === "," || ch === ";")) advance();
      else break;
    }
  };
  const atLineEnd = () => pos >= src.length || src[pos] === "\n";

  /** A "string" at `pos`; returns its text with escapes resolved. */
  const readString = (): string => {
    const start = { line, column: column() };
    advance();
    let text = "";
    for (;;) {
      if (atLineEnd()) throw error("unterminated string", start);
      const ch = advance();
      if (ch === '"') return text;
      if (ch === "\\" && !atLineEnd()) {
        const next = advance();
        text += next === "n" ? "\n" : next === "t" ? "\t" : next;
      } else text += ch;
    }
  };

  /** The body after a `{`, braces counted as AgenTopology counts them (strings are not special). */
  const readRawBody = (opened: { line: number; column: number }): string => {
    const start = pos;
    let depth = 1;
    while (pos < src.length) {
      const ch = advance();
      if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) return src.slice(start, pos - 1);
    }
    throw missingBrace(opened);
  };

  /**
   * The rest of a value: up to the end of the line, a comment, a `}` of the enclosing block, or
   * (on an inline block's line) the next `key:`. Strings and `${…}` are read whole.
   */
  const readScalar = (inline: boolean): AtValue => {
    const startLine = line;
    let text = "";
    let onlyString: string | undefined;
    let parts = 0;
    while (!atLineEnd()) {
      const ch = peek()!;
      if (ch === "}" || atComment()) break;
      if (inline && SPACE.test(ch) && NEXT_KEY.test(src.slice(pos, pos + 200))) break;
      if (ch === '"') {
        const raw = pos;
        onlyString = readString();
        text += src.slice(raw, pos);
        parts++;
        continue;
      }
      if (ch === "$" && peek(1) === "{") {
        const close = src.indexOf("}", pos);
        const newline = src.indexOf("\n", pos);
        if (close !== -1 && (newline === -1 || close < newline)) {
          text += src.slice(pos, close + 1);
          pos = close + 1;
          parts++;
          continue;
        }
      }
      if (!SPACE.test(ch)) parts++;
      text += ch;
      pos++;
    }
    const trimmed = text.trim();
    // One "string" and nothing else is a quoted value; anything more is the text as written.
    if (onlyString !== undefined && trimmed.startsWith('"') && trimmed.endsWith('"') && parts === 1) {
      return { kind: "scalar", text: onlyString, quoted: true, line: startLine };
    }
    return { kind: "scalar", text: trimmed, quoted: false, line: startLine };
  };

  const readList = (): AtValue => {
    const opened = { line, column: column() };
    advance();
    const items: AtValue[] = [];
    for (;;) {
      skipBlank(true);
      const ch = peek();
      if (ch === undefined) throw error(`unexpected end of file (a \`]\` is missing for the list opened on line ${opened.line})`);
      if (ch === "]") {
        advance();
        return { kind: "list", items, line: opened.line };
      }
      if (ch === '"') {
        const itemLine = line;
        items.push({ kind: "scalar", text: readString(), quoted: true, line: itemLine });
        continue;
      }
      const itemLine = line;
      let text = "";
      while (!atLineEnd() && peek() !== "," && peek() !== "]" && !atComment()) text += src[pos++];
      items.push({ kind: "scalar", text: text.trim(), quoted: false, line: itemLine });
    }
  };

  const readValue = (inline: boolean): AtValue => {
    while (pos < src.length && SPACE.test(src[pos])) pos++;
    const ch = peek();
    if (ch === "[") return readList();
    if (ch === "{") {
      const opened = { line, column: column() };
      advance();
      return { kind: "map", text: readRawBody(opened), line: opened.line };
    }
    return readScalar(inline);
  };

  /** Does anything but a comment follow on this line? */
  const contentFollowsOnLine = (): boolean => {
    let i = pos;
    while (i < src.length && SPACE.test(src[i])) i++;
    if (i >= src.length || src[i] === "\n") return false;
    return !(src[i] === "#" || (src[i] === "/" && src[i + 1] === "/"));
  };

  function parseItems(parentKind: string, opened: { line: number; column: number } | undefined, inline: boolean): AtItem[] {
    const items: AtItem[] = [];
    for (;;) {
      skipBlank(true);
      if (pos >= src.length) {
        if (opened) throw missingBrace(opened);
        return items;
      }
      if (peek() === "}") {
        if (!opened) throw error('unexpected "}" (no block is open)');
        advance();
        return items;
      }
      const itemLine = line;
      const itemStart = pos;
      let key = "";
      while (pos < src.length && KEY_CHAR.test(src[pos]) && !(src[pos] === "/" && src[pos + 1] === "/")) key += src[pos++];
      let afterKey = pos;
      while (afterKey < src.length && SPACE.test(src[afterKey])) afterKey++;
      if (key !== "" && src[afterKey] === ":") {
        pos = afterKey + 1;
        items.push({ kind: "field", key, value: readValue(inline), line: itemLine });
        continue;
      }
      // A block header runs to `{` on the same line; without one, the line is reported as it is.
      pos = itemStart;
      let header = "";
      while (!atLineEnd() && peek() !== "{" && peek() !== "}" && !atComment()) {
        if (peek() === '"') {
          const raw = pos;
          readString();
          header += src.slice(raw, pos);
        } else header += src[pos++];
      }
      if (peek() !== "{") {
        if (header.trim() === "") throw error(`unexpected "${peek()}"`);
        items.push({ kind: "line", text: header.trim(), line: itemLine });
        continue;
      }
      const braceAt = { line, column: column() };
      advance();
      const words = headerWords(header);
      if (words.length === 0) throw error('a block needs a name before "{"', braceAt);
      if (isStructured(words, parentKind)) {
        const body = parseItems(words[0], braceAt, contentFollowsOnLine());
        items.push({ kind: "block", header: words, items: body, raw: "", line: itemLine });
      } else {
        items.push({ kind: "block", header: words, items: null, raw: readRawBody(braceAt), line: itemLine });
      }
    }
  }

  return parseItems("root", undefined, false);
}

/** `topology name : [a, b]` → ["topology", "name", "[a, b]"]; `level 1 "x"` → ["level", "1", "x"]. */
function headerWords(header: string): string[] {
  return (header.match(/"[^"]*"|\[[^\]]*\]|[^\s:"[]+/g) ?? []).map((w) => (w.startsWith('"') ? w.slice(1, -1) : w));
}
