/** `npm run docs:config`: rewrites the environment tables of docs/operations.md from lib/platform/config/config-schema.ts. */
import { readFileSync, writeFileSync } from "node:fs";
import { withConfigDocs } from "@/lib/platform/config/config-docs";

const readme = readFileSync("docs/operations.md", "utf8");
const updated = withConfigDocs(readme);
if (updated === readme) console.log("docs/operations.md: the environment tables are up to date");
else {
  writeFileSync("docs/operations.md", updated);
  console.log("docs/operations.md: the environment tables were rewritten from the schema");
}
