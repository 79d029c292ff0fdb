/**
 * Named (prepared) statements on node-postgres. Drizzle sends every query unnamed, so the server
 * parses and plans it again each time; a named one is parsed once per connection and then only
 * bound and executed. Each connection of the pool gets a `query` that names a statement with
 * parameters by a hash of its text (the same text, the same name, on every connection), so
 * drizzle's queries, transactions (drizzle runs them on a client of the pool) and executeStatement
 * all go out prepared without knowing it.
 *
 * Bounded: a connection names at most PREPARED_PER_CONNECTION distinct texts (queries whose text
 * varies with their input, as multi-row inserts do, would otherwise pile up on the server); past
 * that, new texts go out unnamed as before. A pooler that cannot keep prepared statements across
 * transactions (PgBouncer in transaction mode before 1.21) needs this off: `?prepare=false` on the
 * URL or HOOKPLANE_DB_PREPARE=false.
 */
import { createHash } from "node:crypto";
import type pg from "pg";

export const PREPARED_PER_CONNECTION = 500;

/** Whether statements are prepared, and the URL without the `prepare` parameter (not pg's own). */
export function prepareSetting(url: string, prepareByDefault: boolean): { url: string; prepare: boolean } {
  let prepare = prepareByDefault;
  try {
    const parsed = new URL(url);
    const param = parsed.searchParams.get("prepare");
    if (param === null) return { url, prepare };
    if (/^(false|0|off|no)$/i.test(param)) prepare = false;
    parsed.searchParams.delete("prepare");
    return { url: parsed.toString(), prepare };
  } catch {
    // Not a URL pg would read either (a key=value string): left as it is.
    return { url, prepare };
  }
}

/** Text → name, for the texts seen most (hashing a long text each time costs more than a lookup). */
const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `hp_${createHash("sha1").update(text).digest("base64url")}`;
    if (names.size < 2_000) names.set(text, name);
  }
  return name;
}

type QueryArgs = [config: unknown, values?: unknown, callback?: unknown];

/**
 * Wraps `client.query` so a statement with parameters goes out named (when `prepare`), and tells
 * `onStatement` of every statement sent (benchmarks count them).
 */
export function nameStatements(client: pg.ClientBase, options: { prepare: boolean; onStatement?: (text: string) => void }): void {
  const query = client.query.bind(client) as (...args: QueryArgs) => unknown;
  const named = new Set<string>();
  client.query = ((...args: QueryArgs) => {
    let [config] = args;
    const [, values] = args;
    const text = typeof config === "string" ? config : (config as { text?: unknown } | null)?.text;
    if (typeof text !== "string") return query(...args);
    options.onStatement?.(text);
    if (!options.prepare) return query(...args);
    const object = typeof config === "object" ? (config as { name?: unknown; values?: unknown; submit?: unknown }) : undefined;
    // A Submittable (a cursor, a stream) or a query already named is left as it is.
    if (object && (object.name !== undefined || typeof object.submit === "function")) return query(...args);
    const params = Array.isArray(values) ? values : object?.values;
    if (!Array.isArray(params) || params.length === 0) return query(...args);
    const name = statementName(text);
    if (!named.has(name)) {
      if (named.size >= PREPARED_PER_CONNECTION) return query(...args);
      named.add(name);
    }
    config = object ? { ...object, name } : { text, name };
    return query(config, ...args.slice(1));
  }) as pg.ClientBase["query"];
}
