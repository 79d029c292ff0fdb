/** `npm run docs:config`: rewrites the README's environment tables from lib/platform/config/config-schema.ts. */
import { readFileSync, writeFileSync } from "node:fs";
import { withConfigDocs } from "@/lib/platform/config/config-docs";

const readme = readFileSync("README.md", "utf8");
const updated = withConfigDocs(readme);
if (updated === readme) console.log("README.md: the environment tables are up to date");
else {
  writeFileSync("README.md", updated);
  console.log("README.md: the environment tables were rewritten from the schema");
}
