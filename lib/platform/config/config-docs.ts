/**
 * The "Environment" tables of docs/operations.md, written from config-schema.ts: `npm run docs:config`
 * rewrites them, and config-docs.test.ts fails when those tables and the schema part ways.
 */
import { CLI_VARIABLES, CONFIG_PATTERNS, CONFIG_SCHEMA, TEST_VARIABLES, type VariableSpec } from "./config-schema";

export const DOCS_BEGIN = "<!-- config:begin: generated from lib/platform/config/config-schema.ts by `npm run docs:config`; edit it there -->";
export const DOCS_END = "<!-- config:end -->";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function defaultOf(spec: { default?: unknown; defaultText?: string }): string {
  return typeof spec.default === "string" ? `\`${spec.default}\`` : (spec.defaultText ?? "unset");
}

export function configDocs(): string {
  const server = (Object.entries(CONFIG_SCHEMA) as [string, VariableSpec][]).map(
    ([name, spec]) => `| \`${name}\` | ${cell(defaultOf(spec))} | ${cell(spec.description)}${spec.readBy ? ` (read by \`${spec.readBy}\`)` : ""} |`,
  );
  const patterns = Object.entries(CONFIG_PATTERNS).map(([name, spec]) => `| \`${name}\` | ${cell(spec.defaultText)} | ${cell(spec.description)} |`);
  const cli = Object.entries(CLI_VARIABLES).map(([name, text]) => `| \`${name}\` | ${cell(text)} |`);
  const tests = Object.entries(TEST_VARIABLES).map(([names, text]) => `| ${names.split(/,\s*/).map((n) => `\`${n}\``).join(", ")} | ${cell(text)} |`);
  return [
    DOCS_BEGIN,
    "| variable | default | meaning |",
    "|---|---|---|",
    ...server,
    ...patterns,
    "",
    "The `hookplane` command reads these where the coding agent runs (not the server):",
    "",
    "| variable | meaning |",
    "|---|---|",
    ...cli,
    "",
    "Only tests and benchmarks read these:",
    "",
    "| variable | meaning |",
    "|---|---|",
    ...tests,
    DOCS_END,
  ].join("\n");
}

/** `readme` with its generated block replaced by the schema's; throws when the markers are missing. */
export function withConfigDocs(readme: string): string {
  const begin = readme.indexOf(DOCS_BEGIN);
  const end = readme.indexOf(DOCS_END);
  if (begin < 0 || end < begin) throw new Error(`docs/operations.md has no ${DOCS_BEGIN} … ${DOCS_END} block`);
  return readme.slice(0, begin) + configDocs() + readme.slice(end + DOCS_END.length);
}
