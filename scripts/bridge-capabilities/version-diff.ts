/**
 * The events and input fields (top-level keys of the hook's stdin) each version of an agent sent,
 * and what changed between two versions. A change is only claimed between recordings of the same
 * scenario (`bash-ok` and `bash-ok-2.1.332`): an event missing from a scenario recorded with one
 * version only says nothing about the other version.
 */
import type { AgentVersion, Payload, Scenario } from "./fixtures";

export interface FieldCount {
  field: string;
  /** In how many of the event's payloads. */
  seen: number;
}

export interface VersionEvents {
  version: string;
  /** Event → its fields with counts, and how many payloads it had. */
  events: Map<string, { payloads: number; fields: FieldCount[] }>;
}

export interface FieldChange {
  event: string;
  added: string[];
  removed: string[];
}

export interface ScenarioDiff {
  from: string;
  to: string;
  addedEvents: string[];
  removedEvents: string[];
  fields: FieldChange[];
}

export interface VersionDiff {
  from: string;
  to: string;
  compared: ScenarioDiff[];
  /** Scenario folders recorded with only one of the two versions. */
  onlyFrom: string[];
  onlyTo: string[];
}

const payloadsOf = (scenarios: Scenario[]): Payload[] => scenarios.flatMap((s) => s.payloads);

export function versionEvents(version: AgentVersion): VersionEvents {
  const events = new Map<string, { payloads: number; counts: Map<string, number> }>();
  for (const payload of payloadsOf(version.scenarios)) {
    const entry = events.get(payload.event) ?? { payloads: 0, counts: new Map<string, number>() };
    entry.payloads++;
    for (const key of Object.keys(payload.stdin)) entry.counts.set(key, (entry.counts.get(key) ?? 0) + 1);
    events.set(payload.event, entry);
  }
  return {
    version: version.version,
    events: new Map(
      [...events].map(([event, { payloads, counts }]) => [event, { payloads, fields: [...counts].map(([field, seen]) => ({ field, seen })).sort((a, b) => a.field.localeCompare(b.field)) }]),
    ),
  };
}

/** Event → the union of its fields in one scenario. */
function fieldsByEvent(scenario: Scenario): Map<string, Set<string>> {
  const byEvent = new Map<string, Set<string>>();
  for (const payload of scenario.payloads) {
    const fields = byEvent.get(payload.event) ?? new Set<string>();
    for (const key of Object.keys(payload.stdin)) fields.add(key);
    byEvent.set(payload.event, fields);
  }
  return byEvent;
}

const minus = <T>(a: Iterable<T>, b: Set<T>) => [...a].filter((x) => !b.has(x));

export function scenarioDiff(from: Scenario, to: Scenario): ScenarioDiff {
  const a = fieldsByEvent(from);
  const b = fieldsByEvent(to);
  const fields = [...a.keys()]
    .filter((event) => b.has(event))
    .map((event) => ({ event, added: minus(b.get(event)!, a.get(event)!).sort(), removed: minus(a.get(event)!, b.get(event)!).sort() }))
    .filter((change) => change.added.length > 0 || change.removed.length > 0);
  return {
    from: from.folder,
    to: to.folder,
    addedEvents: minus(b.keys(), new Set(a.keys())),
    removedEvents: minus(a.keys(), new Set(b.keys())),
    fields,
  };
}

export function versionDiff(from: AgentVersion, to: AgentVersion): VersionDiff {
  const toByBase = new Map(to.scenarios.map((s) => [s.base, s]));
  const fromBases = new Set(from.scenarios.map((s) => s.base));
  return {
    from: from.version,
    to: to.version,
    compared: from.scenarios.filter((s) => toByBase.has(s.base)).map((s) => scenarioDiff(s, toByBase.get(s.base)!)),
    onlyFrom: from.scenarios.filter((s) => !toByBase.has(s.base)).map((s) => s.folder),
    onlyTo: to.scenarios.filter((s) => !fromBases.has(s.base)).map((s) => s.folder),
  };
}

/** Each version against the one before it, oldest first. */
export function versionDiffs(versions: AgentVersion[]): VersionDiff[] {
  return versions.slice(1).map((version, i) => versionDiff(versions[i], version));
}
