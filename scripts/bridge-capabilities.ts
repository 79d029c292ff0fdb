/**
 * `npm run docs:capabilities`: rewrites docs/bridges/capabilities.md, what each agent lets a hook
 * enforce per CLI version, from the recorded payloads (test/fixtures/bridges), the agents' ingest
 * protocols and modification-support.ts (scripts/bridge-capabilities/).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { agentTables } from "./bridge-capabilities/agent-table";
import { CAPABILITIES_DOC, capabilitiesMarkdown } from "./bridge-capabilities/render";

const generated = capabilitiesMarkdown(agentTables());
let current = "";
try {
  current = readFileSync(CAPABILITIES_DOC, "utf8");
} catch {
  // Not written yet: the first run creates it.
}
if (current === generated) console.log(`${CAPABILITIES_DOC}: up to date`);
else {
  writeFileSync(CAPABILITIES_DOC, generated);
  console.log(`${CAPABILITIES_DOC}: rewritten from the fixtures and the bridge`);
}
