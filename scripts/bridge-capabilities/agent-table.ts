/**
 * One agent's capability table as data: its versions and scenarios, the events each version sent
 * with their fields, what each event lets Hookplane enforce, and what changed between versions.
 * render.ts writes it as markdown; the test reads it to check facts of the recordings.
 */
import { FIXTURES_DIR, readAllFixtures, type AgentFixtures, type Origin } from "./fixtures";
import { eventEnforcement, namesEventInCommand, protocolOf, supportOf, type EventEnforcement } from "./enforcement";
import { versionDiffs, versionEvents, type VersionDiff, type VersionEvents } from "./version-diff";

export interface EventNaming {
  /** The stdin keys that name the event in every payload (Claude Code's `hook_event_name`). */
  stdinKeys: string[];
  /** The hook command names it instead, because the stdin does not (Copilot CLI). */
  command?: string;
  /** Where the stdin names it all the same, on some events only (Copilot's permissionRequest: `hookName`). */
  partly: { event: string; key: string }[];
}

export interface AgentTable {
  agent: string;
  /** As reasons name it ("Claude Code"), from modification-support.ts. */
  name: string;
  origin: Origin;
  versions: { version: string; scenarios: string[] }[];
  /** Every event, in the order the sessions send them (lifecycle order, read from the recordings). */
  events: string[];
  byVersion: VersionEvents[];
  enforcement: Map<string, EventEnforcement>;
  diffs: VersionDiff[];
  /** Fields every payload of every version carried: said once, not in each row. */
  commonFields: string[];
  naming: EventNaming;
}

function eventNaming(fixtures: AgentFixtures): EventNaming {
  const payloads = fixtures.versions.flatMap((v) => v.scenarios.flatMap((s) => s.payloads));
  const namingKeys = payloads.map((p) => new Set(Object.keys(p.stdin).filter((key) => p.stdin[key] === p.event)));
  const stdinKeys = [...namingKeys[0]].filter((key) => namingKeys.every((keys) => keys.has(key)));
  if (stdinKeys.length > 0) return { stdinKeys, partly: [] };
  const partly = payloads.flatMap((p, i) => [...namingKeys[i]].map((key) => ({ event: p.event, key })));
  const unique = [...new Map(partly.map((n) => [`${n.event}/${n.key}`, n])).values()];
  if (!namesEventInCommand(fixtures.agent)) throw new Error(`${fixtures.agent}: neither its stdin nor its hook command names the event`);
  return { stdinKeys, command: protocolOf(fixtures.agent).command, partly: unique };
}

/**
 * Events by where they fall in a session on average (0: first, 1: last), so SessionStart leads and
 * SessionEnd closes whatever scenario each was first seen in; ties by name.
 */
function lifecycleOrder(fixtures: AgentFixtures): string[] {
  const positions = new Map<string, number[]>();
  for (const scenario of fixtures.versions.flatMap((v) => v.scenarios)) {
    scenario.payloads.forEach((p, i) => positions.set(p.event, [...(positions.get(p.event) ?? []), i / Math.max(1, scenario.payloads.length - 1)]));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return [...positions].sort(([a, pa], [b, pb]) => mean(pa) - mean(pb) || a.localeCompare(b)).map(([event]) => event);
}

export function agentTable(fixtures: AgentFixtures): AgentTable {
  const payloads = fixtures.versions.flatMap((v) => v.scenarios.flatMap((s) => s.payloads));
  const events = lifecycleOrder(fixtures);
  const keySets = payloads.map((p) => new Set(Object.keys(p.stdin)));
  return {
    agent: fixtures.agent,
    name: supportOf(fixtures.agent).agent,
    origin: fixtures.origin,
    versions: fixtures.versions.map((v) => ({ version: v.version, scenarios: v.scenarios.map((s) => s.folder) })),
    events,
    byVersion: fixtures.versions.map(versionEvents),
    enforcement: new Map(events.map((event) => [event, eventEnforcement(fixtures.agent, payloads.filter((p) => p.event === event))])),
    diffs: versionDiffs(fixtures.versions),
    commonFields: [...keySets[0]].filter((key) => keySets.every((keys) => keys.has(key))).sort(),
    naming: eventNaming(fixtures),
  };
}

export function agentTables(root = FIXTURES_DIR): AgentTable[] {
  return readAllFixtures(root).map(agentTable);
}
