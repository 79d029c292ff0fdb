/**
 * The state of one import: warnings, errors, and the agents/hooks/schedules built so far, each
 * remembered with the source path it came from. `finish()` validates everything against the
 * canonical schemas, so an importer bug or a value the schema refuses surfaces as an error at
 * the source path instead of as a broken row later.
 */
import { agentSpecSchema, scheduleSpecSchema, type AgentSpecInput } from "@/lib/core/agent/agent-spec";
import { nearestName } from "@/lib/core/hooks/events";
import { MAX_DURATION_MS, parseHookSpec, type HookSpecInput } from "@/lib/core/hooks/spec";
import type { ZodError } from "zod";
import { DialectParseError, type DialectIssue } from "./dialect-error";
import { ObjectReader, joinPath, type IssueSink } from "./field-reader";
import { hookIdFrom } from "./hook-ids";
import { joinDuplicateHookLists } from "./json-duplicate-keys";
import { parseJsonSource } from "./source-text";
import type { DialectName, DialectWarning, ImportedSchedule, ImportResult } from "./types";

type Sourced<T> = { spec: T; path: string };

/**
 * Schema errors at the source path. When the source uses canonical field names (Hookplane's own
 * format) the schema's path extends the source path; otherwise it is named in the message.
 */
function zodIssues(error: ZodError, path: string, canonicalPaths: boolean): DialectIssue[] {
  return error.issues.map((issue) => {
    const fields = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    if (canonicalPaths) return { path: fields.reduce<string>((at, key) => joinPath(at, key), path), message: issue.message };
    return { path, message: `${fields.length ? `${fields.join(".")}: ` : ""}${issue.message}` };
  });
}

/**
 * How a JSON hook file's import starts: its context, and the document's root object (undefined,
 * the problem recorded, when it is not an object). Hook lists repeated under one key are joined
 * first, as `runtime` itself reads them (json-duplicate-keys.ts).
 */
export function startJsonImport(dialect: DialectName, content: string, runtime: string): { ctx: ImportContext; root: ObjectReader | undefined } {
  const ctx = new ImportContext(dialect);
  const parsed = parseJsonSource(content, dialect);
  joinDuplicateHookLists(content, parsed, runtime, ctx);
  return { ctx, root: ctx.reader(parsed, "") };
}

export class ImportContext implements IssueSink {
  readonly warnings: DialectWarning[] = [];
  private readonly issues: DialectIssue[] = [];
  private readonly agents: Sourced<AgentSpecInput>[] = [];
  private readonly hooks: Sourced<HookSpecInput>[] = [];
  private readonly schedules: Sourced<ImportedSchedule>[] = [];
  private readonly idsByScope = new Map<string, Set<string>>();

  constructor(
    readonly dialect: DialectName,
    private readonly canonicalPaths = false,
  ) {}

  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }

  /** A hook (or guard) of the file that Hookplane will not run: the import preview lists it as not enforced. */
  notImported(path: string, message: string): void {
    this.warnings.push({ path, message, enforcement: "not_imported" });
  }

  /** A hook imported, but not as the file says (a condition or limit dropped): listed as not enforced as written. */
  changed(path: string, message: string): void {
    this.warnings.push({ path, message, enforcement: "changed" });
  }

  fail(path: string, message: string, position?: { line: number; column?: number }): void {
    this.issues.push({ path, message, ...position });
  }

  get failed(): boolean {
    return this.issues.length > 0;
  }

  reader(value: unknown, path: string): ObjectReader | undefined {
    return ObjectReader.of(value, path, this);
  }

  /** A hook id derived from `base` (a name or a position), made unique within its scope. */
  hookId(scope: string, base: string, fallback = "hook"): string {
    const taken = this.idsByScope.get(scope) ?? new Set<string>();
    this.idsByScope.set(scope, taken);
    const stem = hookIdFrom(base, fallback);
    let id = stem;
    for (let n = 2; taken.has(id); n++) id = `${stem}-${n}`;
    taken.add(id);
    return id;
  }

  /** Reserve an id given verbatim by the source (Standard Agents, Hookplane); false when taken. */
  claimHookId(scope: string, id: string): boolean {
    const taken = this.idsByScope.get(scope) ?? new Set<string>();
    this.idsByScope.set(scope, taken);
    if (taken.has(id)) return false;
    taken.add(id);
    return true;
  }

  /** Warn about an event name the dialect does not know, suggesting the closest one it does. */
  unknownEvent(path: string, name: string, known: readonly string[], what = "hook"): void {
    const hint = nearestName(name, known);
    this.notImported(
      path,
      `unknown event "${name}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${known.join(", ")}); its ${what}s were not imported`,
    );
  }

  /**
   * A hook timeout the file gave in `unit`: within Hookplane's limit it is returned in
   * milliseconds; beyond it, the error names the limit in the file's own unit.
   */
  timeoutMs(value: number, unit: "ms" | "s", path: string): number | undefined {
    const ms = Math.round(unit === "s" ? value * 1000 : value);
    if (!(value > 0) || ms > MAX_DURATION_MS) {
      const limit = unit === "s" ? `${MAX_DURATION_MS / 1000} seconds` : `${MAX_DURATION_MS} milliseconds`;
      this.fail(path, `a timeout is more than 0 and at most ${limit} (7 days); got ${value}${unit === "s" ? " seconds" : " milliseconds"}`);
      return undefined;
    }
    return ms;
  }

  addAgent(spec: AgentSpecInput, path: string): void {
    this.agents.push({ spec, path });
  }

  /** A hook of a foreign dialect keeps that dialect's runtime contract (lib/core/hooks/dialect-contracts.ts). */
  addHook(spec: HookSpecInput, path: string): void {
    const dialect = this.dialect === "hookplane" ? undefined : this.dialect;
    this.hooks.push({ spec: dialect && spec.dialect === undefined ? { ...spec, dialect } : spec, path });
  }

  addSchedule(spec: ImportedSchedule, path: string): void {
    this.schedules.push({ spec, path });
  }

  /** Validate and assemble the result, or throw every error found. */
  finish(): ImportResult {
    for (const { spec, path } of this.agents) {
      const parsed = agentSpecSchema.safeParse(spec);
      if (!parsed.success) this.issues.push(...zodIssues(parsed.error, path, this.canonicalPaths));
    }
    for (const { spec, path } of this.hooks) {
      // The whole-hook rules too (where secrets and URLs may point), at the dialect's own path.
      const parsed = parseHookSpec(spec);
      if (!parsed.success) this.issues.push(...zodIssues(parsed.error, path, this.canonicalPaths));
    }
    for (const { spec, path } of this.schedules) {
      const { name: _name, hooks: _hooks, ...schedule } = spec;
      const parsed = scheduleSpecSchema.safeParse(schedule);
      if (!parsed.success) this.issues.push(...zodIssues(parsed.error, path, this.canonicalPaths));
    }
    if (this.issues.length > 0) throw new DialectParseError(this.dialect, this.issues);

    const schedules = this.schedules.map(({ spec }) => ({ ...spec }));
    const byScope = new Map(schedules.map((s) => [`schedule:${s.name}`, s]));
    const hooks: HookSpecInput[] = [];
    for (const { spec } of this.hooks) {
      const schedule = spec.scope ? byScope.get(spec.scope) : undefined;
      if (schedule) (schedule.hooks ??= []).push(spec);
      else hooks.push(spec);
    }
    return { agents: this.agents.map((a) => a.spec), hooks, schedules, warnings: this.warnings };
  }
}
