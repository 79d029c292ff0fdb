/**
 * Typed, path-aware reading of parsed config data. Every importer reads through an ObjectReader so
 * that (1) a wrong type becomes an error naming the exact path, and (2) every key nobody read is
 * reported as a warning: an importer cannot drop a field silently by forgetting it.
 */

export type PlainObject = Record<string, unknown>;

/** Where readers report; ImportContext implements it. */
export interface IssueSink {
  warn(path: string, message: string): void;
  fail(path: string, message: string): void;
}

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const BARE_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `hooks` + `PreToolUse` → `hooks.PreToolUse`; + 0 → `hooks.PreToolUse[0]`; odd keys are quoted. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (BARE_KEY.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

/** "a string", "a number (5)", "an array"… for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
    case "number":
    case "boolean":
      return `a ${typeof value} (${String(value)})`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

export type ListItem = { value: unknown; path: string; index: number };

export class ObjectReader {
  private readonly read = new Set<string>();

  private constructor(
    readonly value: PlainObject,
    readonly path: string,
    private readonly sink: IssueSink,
  ) {}

  /** A reader over `value`, or undefined (with an error) when it is not an object. */
  static of(value: unknown, path: string, sink: IssueSink): ObjectReader | undefined {
    if (!isPlainObject(value)) {
      sink.fail(path, `expected an object, got ${describeValue(value)}`);
      return undefined;
    }
    return new ObjectReader(value, path, sink);
  }

  has(key: string): boolean {
    return this.value[key] !== undefined;
  }

  keys(): string[] {
    return Object.keys(this.value);
  }

  at(key: string | number): string {
    return joinPath(this.path, key);
  }

  /** The value as is; marks the key as handled. */
  raw(key: string): unknown {
    this.read.add(key);
    return this.value[key];
  }

  private missing(key: string, required: boolean | undefined): undefined {
    if (required) this.sink.fail(this.at(key), "is required");
    return undefined;
  }

  private wrongType(key: string, expected: string, value: unknown): undefined {
    this.sink.fail(this.at(key), `expected ${expected}, got ${describeValue(value)}`);
    return undefined;
  }

  string(key: string, options: { required?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return this.missing(key, options.required);
    if (typeof value !== "string") return this.wrongType(key, "a string", value);
    if ((options.nonEmpty || options.required) && value.trim() === "") {
      this.sink.fail(this.at(key), "must not be empty");
      return undefined;
    }
    return value;
  }

  number(key: string, options: { required?: boolean; integer?: boolean; positive?: boolean; unit?: string } = {}): number | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return this.missing(key, options.required);
    const expected = `a ${options.positive ? "positive " : ""}${options.integer ? "whole number" : "number"}${options.unit ? ` (${options.unit})` : ""}`;
    if (typeof value !== "number" || !Number.isFinite(value)) return this.wrongType(key, expected, value);
    if ((options.integer && !Number.isInteger(value)) || (options.positive && value <= 0)) {
      return this.wrongType(key, expected, value);
    }
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean") return this.wrongType(key, "true or false", value);
    return value;
  }

  /** A list of strings; a non-string item is an error at its own index. */
  stringList(key: string, options: { required?: boolean } = {}): string[] | undefined {
    const items = this.list(key, options);
    if (!items) return undefined;
    const strings: string[] = [];
    for (const item of items) {
      if (typeof item.value === "string") strings.push(item.value);
      else this.sink.fail(item.path, `expected a string, got ${describeValue(item.value)}`);
    }
    return strings;
  }

  /** A map of string → string (headers); a non-string value is an error at its own key. */
  stringMap(key: string): Record<string, string> | undefined {
    const nested = this.object(key);
    if (!nested) return undefined;
    const result: Record<string, string> = {};
    for (const entry of nested.entries()) {
      if (typeof entry.value === "string") result[entry.key] = entry.value;
      else if (typeof entry.value === "number" || typeof entry.value === "boolean") result[entry.key] = String(entry.value);
      else this.sink.fail(entry.path, `expected a string, got ${describeValue(entry.value)}`);
    }
    return result;
  }

  object(key: string, options: { required?: boolean } = {}): ObjectReader | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return this.missing(key, options.required);
    return ObjectReader.of(value, this.at(key), this.sink);
  }

  list(key: string, options: { required?: boolean; allowSingle?: boolean } = {}): ListItem[] | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return this.missing(key, options.required);
    if (!Array.isArray(value)) {
      // Some dialects (Tailored AI) accept one entry where a list is expected.
      if (options.allowSingle && isPlainObject(value)) return [{ value, path: this.at(key), index: 0 }];
      return this.wrongType(key, "a list", value);
    }
    return value.map((item, index) => ({ value: item, path: joinPath(this.at(key), index), index }));
  }

  /** Every key of a map-shaped object (event → hooks, name → schedule), marking all as read. */
  entries(): { key: string; value: unknown; path: string }[] {
    return this.keys().map((key) => ({ key, value: this.raw(key), path: this.at(key) }));
  }

  /** A key that is understood but has no Hookplane equivalent. */
  ignore(key: string, message: string): void {
    if (this.has(key)) this.sink.warn(this.at(key), message);
    this.read.add(key);
  }

  /** Warn about every key nobody read: the guarantee that nothing is dropped silently. */
  warnUnread(message: (key: string) => string = (key) => `"${key}" has no Hookplane equivalent; ignored`): void {
    for (const key of this.keys()) {
      if (!this.read.has(key)) this.sink.warn(this.at(key), message(key));
    }
  }
}
