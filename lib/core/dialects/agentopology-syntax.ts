/**
 * A tokenizer and parser for the subset of AgenTopology's `.at` DSL that carries agents, flows and
 * hooks: nested `header { … }` blocks, `key: value` fields (values are words, "strings" or
 * `[lists]`), and opaque blocks whose tokens are kept for the caller (e.g. `flow { a -> b }`).
 * Fields need no separators (`{ model: sonnet tools: [Read] }`); `#` and `//` start comments.
 */

export type AtToken = { kind: "word" | "string" | "punct"; value: string; line: number; column: number };

export type AtValue =
  | { kind: "scalar"; text: string; quoted: boolean; line: number }
  | { kind: "list"; items: AtValue[]; line: number };

export type AtField = { kind: "field"; key: string; value: AtValue; line: number };
export type AtBlock = {
  kind: "block";
  /** Tokens before `{`: `agent deployer`, `topology name : [tags]`, `hook log-start`, `log-start`. */
  header: AtToken[];
  /** Parsed items, or null for an opaque block (see `tokens`). */
  items: AtItem[] | null;
  tokens: AtToken[];
  line: number;
};
export type AtItem = AtField | AtBlock;

export class AtSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${message}`);
  }
}

const PUNCTUATION = new Set(["{", "}", "[", "]", ":", ","]);
const WORD = /[A-Za-z0-9_.$@*\/+<>=!?%&|~'-]/;

export function tokenizeAt(source: string): AtToken[] {
  const tokens: AtToken[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    const column = i - lineStart + 1;
    if (ch === "\n") {
      line++;
      i++;
      lineStart = i;
    } else if (/\s/.test(ch) || ch === ";") {
      i++;
    } else if (ch === "#" || (ch === "/" && source[i + 1] === "/")) {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (ch === "-" && source[i + 1] === ">") {
      tokens.push({ kind: "punct", value: "->", line, column });
      i += 2;
    } else if (PUNCTUATION.has(ch)) {
      tokens.push({ kind: "punct", value: ch, line, column });
      i++;
    } else if (ch === '"') {
      let text = "";
      i++;
      for (;;) {
        if (i >= source.length || source[i] === "\n") throw new AtSyntaxError("unterminated string", line, column);
        const c = source[i];
        if (c === '"') break;
        if (c === "\\" && i + 1 < source.length) {
          const next = source[i + 1];
          text += next === "n" ? "\n" : next === "t" ? "\t" : next;
          i += 2;
        } else {
          text += c;
          i++;
        }
      }
      i++;
      tokens.push({ kind: "string", value: text, line, column });
    } else if (WORD.test(ch)) {
      let end = i;
      while (end < source.length && WORD.test(source[end]) && !(source[end] === "-" && source[end + 1] === ">")) end++;
      tokens.push({ kind: "word", value: source.slice(i, end), line, column });
      i = end;
    } else {
      throw new AtSyntaxError(`unexpected character "${ch}"`, line, column);
    }
  }
  return tokens;
}

/** Blocks whose bodies are `key: value` fields and nested blocks; any other block is opaque. */
export type BodyRule = (header: AtToken[], parentKind: string) => boolean;

export function parseAt(source: string, isStructured: BodyRule): AtItem[] {
  const tokens = tokenizeAt(source);
  let position = 0;
  const peek = (offset = 0): AtToken | undefined => tokens[position + offset];
  const endOfInput = (): AtSyntaxError => {
    const last = tokens[tokens.length - 1];
    return new AtSyntaxError("unexpected end of file (a `}` is missing)", last?.line ?? 1, (last?.column ?? 0) + 1);
  };

  function parseValue(): AtValue {
    const token = peek();
    if (!token) throw endOfInput();
    if (token.value === "[" && token.kind === "punct") {
      position++;
      const items: AtValue[] = [];
      for (;;) {
        const next = peek();
        if (!next) throw endOfInput();
        if (next.kind === "punct" && next.value === "]") break;
        if (next.kind === "punct" && next.value === ",") {
          position++;
          continue;
        }
        items.push(parseValue());
      }
      position++;
      return { kind: "list", items, line: token.line };
    }
    if (token.kind === "punct") throw new AtSyntaxError(`expected a value, got "${token.value}"`, token.line, token.column);
    position++;
    return { kind: "scalar", text: token.value, quoted: token.kind === "string", line: token.line };
  }

  /** Skip a balanced body after its `{`, returning its tokens. */
  function skipBody(): AtToken[] {
    const start = position;
    let depth = 1;
    for (;;) {
      const token = peek();
      if (!token) throw endOfInput();
      position++;
      if (token.kind === "punct" && token.value === "{") depth++;
      if (token.kind === "punct" && token.value === "}" && --depth === 0) return tokens.slice(start, position - 1);
    }
  }

  function parseItems(parentKind: string, closing: boolean): AtItem[] {
    const items: AtItem[] = [];
    for (;;) {
      const token = peek();
      if (!token) {
        if (closing) throw endOfInput();
        return items;
      }
      if (token.kind === "punct" && token.value === "}") {
        if (!closing) throw new AtSyntaxError('unexpected "}"', token.line, token.column);
        position++;
        return items;
      }
      if (token.kind === "punct" && token.value === ",") {
        position++;
        continue;
      }
      if (token.kind === "punct") throw new AtSyntaxError(`unexpected "${token.value}"`, token.line, token.column);
      // `key: value` is a field; anything else opens a block (`topology name : [tags] {` starts with a keyword).
      const next = peek(1);
      if (next?.kind === "punct" && next.value === ":") {
        position += 2;
        items.push({ kind: "field", key: token.value, value: parseValue(), line: token.line });
        continue;
      }
      // A block header: tokens up to `{`, all on the header's first line.
      const header: AtToken[] = [];
      for (;;) {
        const part = peek();
        if (!part) throw endOfInput();
        if (part.line !== token.line) {
          throw new AtSyntaxError(`expected ":" or "{" after "${header.map((h) => h.value).join(" ")}"`, token.line, token.column);
        }
        position++;
        if (part.kind === "punct" && part.value === "{") break;
        if (part.kind === "punct" && part.value === "}") throw new AtSyntaxError(`expected ":" or "{" after "${token.value}"`, part.line, part.column);
        header.push(part);
      }
      const kind = header[0].value;
      if (isStructured(header, parentKind)) {
        const body = parseItems(kind, true);
        items.push({ kind: "block", header, items: body, tokens: [], line: token.line });
      } else {
        items.push({ kind: "block", header, items: null, tokens: skipBody(), line: token.line });
      }
    }
  }

  return parseItems("root", false);
}
