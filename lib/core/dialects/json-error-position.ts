/**
 * Where a JSON text stops being valid. Node's JSON.parse names the position in some versions and
 * not in others ("Unexpected token ','… is not valid JSON"), so this small scanner finds the
 * offset of the first offending character itself, for an error message with a line number.
 */

const WHITESPACE = /[ \t\n\r]/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The offset of the first invalid character, or undefined when the text is valid JSON. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const skip = () => {
    while (i < text.length && WHITESPACE.test(text[i])) i++;
  };
  const expect = (ch: string) => {
    if (text[i] !== ch) fail();
    i++;
  };
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    expect('"');
  };
  const value = (): void => {
    skip();
    const ch = text[i];
    if (ch === "{") {
      i++;
      skip();
      if (text[i] === "}") return void i++;
      for (;;) {
        skip();
        string();
        skip();
        expect(":");
        value();
        skip();
        if (text[i] === ",") i++;
        else return expect("}");
      }
    }
    if (ch === "[") {
      i++;
      skip();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        skip();
        if (text[i] === ",") i++;
        else return expect("]");
      }
    }
    if (ch === '"') return string();
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) return void (i += word.length);
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    fail();
  };
  try {
    value();
    skip();
    if (i < text.length) fail();
    return undefined;
  } catch (offset) {
    if (typeof offset === "number") return offset;
    throw offset;
  }
}

/** 1-based line and column of a character offset. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/**
 * What is wrong with a JSON text, said for a person: a text that stops before its objects and
 * lists are closed (a truncated paste or download) "ends early at line N"; anything else is
 * invalid at a line and column. Undefined when the text is valid JSON.
 */
export function describeJsonProblem(text: string): { message: string; line: number; column: number } | undefined {
  const offset = jsonErrorOffset(text);
  if (offset === undefined) return undefined;
  if (offset >= text.trimEnd().length) {
    const at = positionAt(text, text.trimEnd().length);
    return { message: `JSON ends early at line ${at.line}: an object, list or string is not closed (is the file cut off?)`, ...at };
  }
  const at = positionAt(text, offset);
  return { message: `invalid JSON at line ${at.line}, column ${at.column}`, ...at };
}
