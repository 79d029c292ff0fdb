/**
 * The hook payloads of each bridged agent (test/fixtures/bridges/<agent>/<scenario>/NN-Event.json),
 * grouped by the CLI version each scenario was recorded with. SOURCE.md says the version in prose,
 * so each agent folder's versions.json says it for machines: scenario folder → version, and whether
 * the payloads were recorded from the real CLI or built from the agent's published reference.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

export const FIXTURES_DIR = "test/fixtures/bridges";

export type Origin = "recorded" | "reference";

export interface Payload {
  /** The event as the agent names it (the file's name: Copilot's stdin names none). */
  event: string;
  /** The hook's stdin JSON. */
  stdin: Record<string, unknown>;
  /** Everything else the capture script saw (`env`, `argv`, ...). */
  capture: Record<string, unknown>;
}

export interface Scenario {
  /** The folder, e.g. `bash-ok-2.1.332`. */
  folder: string;
  /** The folder less its version suffix, e.g. `bash-ok`: the same session recorded with another version. */
  base: string;
  payloads: Payload[];
}

export interface AgentVersion {
  version: string;
  scenarios: Scenario[];
}

export interface AgentFixtures {
  /** The fixture folder, which is also the agent's `runs.source` and ingest path. */
  agent: string;
  origin: Origin;
  /** Oldest first. */
  versions: AgentVersion[];
}

const versionsFileSchema = z.strictObject({
  origin: z.enum(["recorded", "reference"]),
  scenarios: z.record(z.string(), z.string().regex(/^\d+(\.\d+)+$/, "a version such as 2.1.332")),
  /**
   * An agent that runs another's hooks (Qwen Code and droid speak Claude Code's): its payloads go
   * through that agent's bridge, and what holds is told in `coveredIn`, not in this table.
   */
  speaks: z.string().optional(),
  coveredIn: z.string().optional(),
});

const PAYLOAD_FILE = /^\d+-(.+)\.json$/;

/** `bash-ok-2.1.332` → `bash-ok`; `tools-2` stays (a version suffix has a dot). */
export function scenarioBase(folder: string): string {
  return folder.replace(/-\d+(\.\d+)+$/, "");
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function readScenario(dir: string, folder: string): Scenario {
  const payloads = readdirSync(path.join(dir, folder))
    .filter((file) => PAYLOAD_FILE.test(file))
    .sort()
    .map((file): Payload => {
      const { stdin, ...capture } = JSON.parse(readFileSync(path.join(dir, folder, file), "utf8")) as Record<string, unknown>;
      if (typeof stdin !== "object" || stdin === null) throw new Error(`${dir}/${folder}/${file}: no stdin object`);
      return { event: PAYLOAD_FILE.exec(file)![1], stdin: stdin as Record<string, unknown>, capture };
    });
  return { folder, base: scenarioBase(folder), payloads };
}

/** A folder of payloads, as opposed to `transcripts/` and the like. */
function isScenarioFolder(dir: string, name: string): boolean {
  return readdirSync(path.join(dir, name), { withFileTypes: true }).some((e) => e.isFile() && PAYLOAD_FILE.test(e.name));
}

/**
 * One agent's fixtures. A scenario folder missing from versions.json (or listed but absent) is an
 * error, so a new recording cannot land in the table under no version.
 */
export function readAgentFixtures(agent: string, root = FIXTURES_DIR): AgentFixtures {
  const dir = path.join(root, agent);
  const versionsPath = path.join(dir, "versions.json");
  const file = versionsFileSchema.parse(JSON.parse(readFileSync(versionsPath, "utf8")));
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isScenarioFolder(dir, entry.name))
    .map((entry) => entry.name)
    .sort();
  const unlisted = folders.filter((f) => !(f in file.scenarios));
  const missing = Object.keys(file.scenarios).filter((f) => !folders.includes(f));
  if (unlisted.length > 0) throw new Error(`${versionsPath} does not say which version recorded ${unlisted.join(", ")} (see SOURCE.md)`);
  if (missing.length > 0) throw new Error(`${versionsPath} lists ${missing.join(", ")}, which hold no payloads`);
  const versions = [...new Set(Object.values(file.scenarios))].sort(compareVersions).map((version) => ({
    version,
    scenarios: folders.filter((f) => file.scenarios[f] === version).map((f) => readScenario(dir, f)),
  }));
  return { agent, origin: file.origin, versions };
}

/**
 * Every bridged agent's folder, by name; one without a versions.json is an error (its table would
 * be missing); one that speaks another agent's format names the page that covers it, and is left out.
 */
export function readAllFixtures(root = FIXTURES_DIR): AgentFixtures[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .flatMap((agent) => {
      const versionsPath = path.join(root, agent, "versions.json");
      if (!existsSync(versionsPath)) throw new Error(`${root}/${agent} has no versions.json: say which CLI version recorded each scenario`);
      const file = versionsFileSchema.parse(JSON.parse(readFileSync(versionsPath, "utf8")));
      if (file.speaks) {
        if (!file.coveredIn || !existsSync(path.join(root, "..", "..", "..", file.coveredIn))) throw new Error(`${versionsPath}: an agent that speaks ${file.speaks}'s format names the page that covers it (coveredIn)`);
        return [];
      }
      return [readAgentFixtures(agent, root)];
    });
}
