/**
 * The kinds of value an environment variable holds, as zod schemas from the raw text to the typed
 * value. Each refuses a bad value with one line saying what it expected ("expected a positive
 * integer"); config.ts prefixes the variable's name and what it got. An empty value counts as
 * unset (compose files and Helm values write `FOO=` for "not set"), so it never reaches these.
 */
import path from "node:path";
import { z } from "zod";

/** A raw value and what it means, or undefined when it is not one (the issue says what was expected). */
function valueOf<T>(expected: string, parse: (raw: string) => T | undefined) {
  return z.string().transform((raw, ctx): T => {
    const parsed = parse(raw.trim());
    if (parsed === undefined) {
      ctx.addIssue({ code: "custom", message: `expected ${expected}` });
      return z.NEVER;
    }
    return parsed;
  });
}

/** A whole number in [min, max]: milliseconds, counts, sizes. */
export function integer(options: { min: number; max?: number; expected?: string }) {
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const expected =
    options.expected ?? (options.min === 1 && max === Number.MAX_SAFE_INTEGER ? "a positive integer" : options.min === 0 && max === Number.MAX_SAFE_INTEGER ? "an integer ≥ 0" : `an integer from ${options.min} to ${max}`);
  return valueOf(expected, (raw) => {
    if (!/^[+-]?\d+$/.test(raw)) return undefined;
    const value = Number(raw);
    return Number.isSafeInteger(value) && value >= options.min && value <= max ? value : undefined;
  });
}

const TRUE = new Set(["1", "true", "on", "yes"]);
const FALSE = new Set(["0", "false", "off", "no"]);

/** A switch: 1/true/on/yes or 0/false/off/no (any case). */
export function flag() {
  return valueOf("1 or 0 (true/false, on/off, yes/no)", (raw) => {
    const word = raw.toLowerCase();
    return TRUE.has(word) ? true : FALSE.has(word) ? false : undefined;
  });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return valueOf(`one of ${values.map((v) => JSON.stringify(v)).join(", ")}`, (raw) => (values as readonly string[]).includes(raw) ? (raw as T[number]) : undefined);
}

/** A fraction from 0 to 1 (a sampling ratio). */
export function fraction() {
  return valueOf("a number from 0 to 1", (raw) => {
    if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(raw)) return undefined;
    const value = Number(raw);
    return value >= 0 && value <= 1 ? value : undefined;
  });
}

export function text() {
  return valueOf("some text", (raw) => raw || undefined);
}

/** A secret of at least `minLength` characters (a bearer token). */
export function token(minLength: number) {
  return valueOf(`at least ${minLength} characters`, (raw) => (raw.length >= minLength && !/\s/.test(raw) ? raw : undefined));
}

/** An absolute URL with one of `protocols`, returned as given. */
export function url(protocols: readonly string[], expected: string) {
  return valueOf(expected, (raw) => {
    try {
      return protocols.includes(new URL(raw).protocol) ? raw : undefined;
    } catch {
      return undefined;
    }
  });
}

/** A folder, resolved against the working directory. */
export function folder() {
  return valueOf("a path", (raw) => (raw ? path.resolve(/*turbopackIgnore: true*/ raw) : undefined));
}

/** `a, b ,c` → ["a", "b", "c"], each item checked by `item`. */
export function list(expected: string, item: (entry: string) => string | undefined) {
  return valueOf(expected, (raw) => {
    const items = raw.split(",").map((s) => s.trim()).filter(Boolean);
    const parsed = items.map(item);
    return parsed.every((p): p is string => p !== undefined) ? parsed : undefined;
  });
}

/** Host names for the outbound allow-list (`127.0.0.1`, `ci.corp`, `*.corp.example`, `*`), lower case. */
export function hostList() {
  return list("comma-separated host names (api.example.com, *.corp.example, 127.0.0.1 or *)", (entry) => {
    const host = entry.toLowerCase();
    return /^[a-z0-9_.*:[\]-]+$/.test(host) ? host : undefined;
  });
}

/** Names of environment variables, never Hookplane's own or the database URL. */
export function variableNames() {
  return list("comma-separated variable names (HOOKPLANE_*, DATABASE_URL and DATABASE_DIRECT_URL are never passed on)", (entry) =>
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(entry) && !entry.startsWith("HOOKPLANE_") && entry !== "DATABASE_URL" && entry !== "DATABASE_DIRECT_URL" ? entry : undefined,
  );
}

/** 32 bytes as 64 hex characters or base64 (lib/platform/security/secret-box.ts reads it the same way). */
export function secretKey() {
  return valueOf("32 bytes as 64 hex characters or base64 (openssl rand -base64 32)", (raw) => {
    const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, "base64") : undefined;
    return bytes?.length === 32 ? raw : undefined;
  });
}

/**
 * `key=value,key2=value2` with percent-encoded values (the W3C baggage form OpenTelemetry's
 * OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES use) → an object.
 */
export function keyValues() {
  return valueOf("comma-separated key=value pairs, values percent-encoded (Authorization=Basic%20abc)", (raw) => {
    const out: Record<string, string> = {};
    for (const item of raw.split(",")) {
      if (!item.trim()) continue;
      const eq = item.indexOf("=");
      const key = eq > 0 ? item.slice(0, eq).trim() : "";
      if (!key) return undefined;
      try {
        out[key] = decodeURIComponent(item.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
    return out;
  });
}

/** Anything, or nothing: a variable that is documented but no longer read. */
export function ignored() {
  return z.string();
}

/** What a model provider's or a collector's URL may be. */
export const PROVIDER_URL = ["http:", "https:"] as const;
