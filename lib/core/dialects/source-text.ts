/**
 * Parsing the raw text of a config (JSON or YAML) into plain data, turning syntax errors into
 * DialectParseError issues that name the line and column.
 */
import { parseDocument } from "yaml";
import { DialectParseError } from "./dialect-error";
import { jsonErrorOffset } from "./json-error-position";
import type { DialectName } from "./types";

/** 1-based line and column of a character offset. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

export function parseJsonSource(content: string, dialect: DialectName): unknown {
  // Editors on Windows save JSON with a byte order mark; JSON.parse refuses it.
  content = content.replace(/^\uFEFF/, "");
  if (content.trim() === "") {
    throw new DialectParseError(dialect, [{ path: "", message: "the document is empty" }]);
  }
  try {
    return JSON.parse(content);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node reports either "at position N" or "(line L column C)" depending on the version.
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    const at = lineColumn
      ? { line: Number(lineColumn[1]), column: Number(lineColumn[2]) }
      : position
        ? positionAt(content, Number(position[1]))
        : positionAt(content, jsonErrorOffset(content) ?? content.length);
    throw new DialectParseError(dialect, [
      { path: "", message: `invalid JSON at line ${at.line}, column ${at.column}: ${message}`, ...at },
    ]);
  }
}

export function parseYamlSource(content: string, dialect: DialectName): unknown {
  if (content.trim() === "") {
    throw new DialectParseError(dialect, [{ path: "", message: "the document is empty" }]);
  }
  const document = parseDocument(content, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new DialectParseError(
      dialect,
      document.errors.map((error) => {
        const at = error.linePos?.[0] ?? positionAt(content, error.pos[0]);
        const line = "line" in at ? at.line : 1;
        const column = "col" in at ? at.col : "column" in at ? at.column : 1;
        return { path: "", message: `invalid YAML at line ${line}, column ${column}: ${error.message.split("\n")[0]}`, line, column };
      }),
    );
  }
  return document.toJS({ maxAliasCount: 100 });
}
