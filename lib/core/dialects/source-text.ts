/**
 * Parsing the raw text of a config (JSON or YAML) into plain data, turning syntax errors into
 * DialectParseError issues that name the line and column.
 */
import { parseDocument } from "yaml";
import { DialectParseError } from "./dialect-error";
import { describeJsonProblem, positionAt } from "./json-error-position";
import type { DialectName } from "./types";

export { positionAt };

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
    // Node's own text differs by version ("at position N", "(line L column C)", none): the
    // scanner places the problem the same way everywhere, and says a cut-off text is one.
    const problem = describeJsonProblem(content) ?? { message: "invalid JSON", ...positionAt(content, content.length) };
    throw new DialectParseError(dialect, [{ path: "", message: `${problem.message}: ${message}`, line: problem.line, column: problem.column }]);
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
