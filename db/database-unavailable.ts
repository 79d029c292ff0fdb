/**
 * Telling "the database is not there" from every other error: a connection refused, reset, timed
 * out or ended, a server shutting down or not accepting connections yet, a statement cut by its
 * timeout. Those are outages, answered 503 with Retry-After (they heal by themselves), never 500.
 */

/** Thrown where the process already knows the database is down, without waiting for a timeout. */
export class DatabaseUnavailableError extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
  constructor(message = "the database is unavailable") {
    super(message);
    this.name = "DatabaseUnavailableError";
  }
}

/** Node socket errors (and postgres.js's connection errors, for the tools that still use it). */
const CONNECTION_CODES = new Set([
  "DATABASE_UNAVAILABLE",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * SQLSTATEs of an outage: class 08 (connection exception), 57P01-57P03 (the server is shutting
 * down, crashed or not yet accepting connections), 57014 (a statement cut by statement_timeout or
 * a cancel), 53300 (too many connections).
 */
function isOutageState(code: string): boolean {
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "57014" || code === "53300";
}

/** node-postgres's connection errors carry no code, only these messages. */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client was closed and is not queryable|Client has encountered a connection error)/;

/** True when `error` (or one of its causes: drizzle wraps the driver's error) is an outage. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECTION_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isOutageState(code)))) return true;
    if (e instanceof Error && code === undefined && PG_CONNECTION_MESSAGES.test(e.message)) return true;
    // An AggregateError of a connect to several addresses (localhost as ::1 and 127.0.0.1).
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
