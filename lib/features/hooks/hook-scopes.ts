/**
 * Scopes as the dashboard shows them: labelled with agent and schedule names, and hooks grouped by
 * scope in execution order (global, then each agent by name, then schedules).
 */
export interface AgentRef {
  id: string;
  name: string;
  tools: string[];
}

export interface ScheduleRef {
  id: string;
  name: string | null;
  agentId: string;
}

export interface ScopeOption {
  value: string;
  label: string;
  kind: "global" | "group" | "person" | "agent" | "schedule";
}

/** A member of the project, whose rules a `person:<id>` scope holds. */
export interface PersonRef {
  id: string;
  email: string;
}

function scheduleLabel(schedule: ScheduleRef, agents: readonly AgentRef[]): string {
  const agent = agents.find((a) => a.id === schedule.agentId)?.name ?? "deleted agent";
  return `Schedule ${schedule.name ?? schedule.id.slice(0, 8)} (${agent})`;
}

/**
 * Every scope a hook can have, in execution order (precedence): global, each single sign-on group
 * known (from the members' last sign-ins and the rules already written), each member, agents, schedules.
 */
export function scopeOptions(
  agents: readonly AgentRef[],
  schedules: readonly ScheduleRef[],
  people: readonly PersonRef[] = [],
  groups: readonly string[] = [],
): ScopeOption[] {
  return [
    { value: "global", label: "Global (every agent)", kind: "global" },
    ...[...new Set(groups)].sort().map((g) => ({ value: `group:${g}`, label: `Group ${g} (single sign-on)`, kind: "group" as const })),
    ...[...people].sort((a, b) => a.email.localeCompare(b.email)).map((p) => ({ value: `person:${p.id}`, label: `Person ${p.email}`, kind: "person" as const })),
    ...[...agents].sort((a, b) => a.name.localeCompare(b.name)).map((a) => ({ value: `agent:${a.id}`, label: `Agent ${a.name}`, kind: "agent" as const })),
    ...schedules.map((s) => ({ value: `schedule:${s.id}`, label: scheduleLabel(s, agents), kind: "schedule" as const })),
  ];
}

export function scopeLabel(scope: string, options: readonly ScopeOption[]): string {
  const known = options.find((o) => o.value === scope);
  if (known) return known.label;
  const [kind, id = ""] = scope.split(/:(.*)/s);
  if (kind === "group") return `Group ${id} (single sign-on)`;
  if (kind === "person") return `Person no longer a member ${id.slice(0, 8)}`;
  return `${kind === "schedule" ? "Deleted schedule" : "Deleted agent"} ${id.slice(0, 8)}`;
}

const KIND_ORDER: readonly ScopeOption["kind"][] = ["global", "group", "person", "agent", "schedule"];

export interface ScopeGroup<H> {
  scope: string;
  label: string;
  hooks: H[];
}

/** Groups hooks (already in position order) by scope, the groups in execution order. */
export function groupByScope<H extends { scope: string }>(hooks: readonly H[], options: readonly ScopeOption[]): ScopeGroup<H>[] {
  const groups = new Map<string, H[]>();
  for (const hook of hooks) {
    const list = groups.get(hook.scope);
    if (list) list.push(hook);
    else groups.set(hook.scope, [hook]);
  }
  const rank = (scope: string) => {
    const index = options.findIndex((o) => o.value === scope);
    if (index >= 0) return index;
    // Hooks of a deleted agent or schedule, or a person who left, sort after the live ones of their kind.
    const kind = scope.slice(0, scope.indexOf(":"));
    const lastOfKind = options.findLastIndex((o) => KIND_ORDER.indexOf(o.kind) <= KIND_ORDER.indexOf(kind as ScopeOption["kind"]));
    return lastOfKind + 0.5;
  };
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([scope, list]) => ({ scope, label: scopeLabel(scope, options), hooks: list }));
}

/** The names a matcher is tested against in this scope: tools (or agent names) of its agents. */
export function matcherNames(scope: string, kind: "tool" | "agent", agents: readonly AgentRef[], schedules: readonly ScheduleRef[]): string[] {
  let inScope: readonly AgentRef[] = agents;
  if (scope.startsWith("agent:")) inScope = agents.filter((a) => `agent:${a.id}` === scope);
  if (scope.startsWith("schedule:")) {
    const schedule = schedules.find((s) => `schedule:${s.id}` === scope);
    inScope = agents.filter((a) => a.id === schedule?.agentId);
  }
  const names = kind === "tool" ? inScope.flatMap((a) => a.tools) : inScope.map((a) => a.name);
  return [...new Set(names)].sort();
}
