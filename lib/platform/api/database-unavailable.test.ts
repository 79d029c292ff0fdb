import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError, isDatabaseUnavailable } from "@/db/database-unavailable";
import { AppError } from "./app-error";
import { toErrorResponse } from "./route";

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
/** How drizzle reports a failed query: its own error, the driver's as the cause. */
const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: select 1"), { cause });

describe("database outages are told from other errors", () => {
  it.each([
    ["a refused connection", coded("ECONNREFUSED")],
    ["a reset connection", wrapped(coded("ECONNRESET"))],
    ["a server shutting down (pg_terminate_backend)", wrapped(coded("57P01", "terminating connection due to administrator command"))],
    ["a server still starting", coded("57P03")],
    ["a connection exception (class 08)", coded("08006")],
    ["a statement cut by statement_timeout", wrapped(coded("57014"))],
    ["node-postgres's connection lost", wrapped(new Error("Connection terminated unexpectedly"))],
    ["node-postgres's connect timeout", new Error("timeout exceeded when trying to connect")],
    ["node-postgres's client-side query timeout", wrapped(new Error("Query read timeout"))],
    ["the process's own knowledge", new DatabaseUnavailableError()],
    ["a connect to several addresses", new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")])],
  ])("%s is an outage", (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a unique violation", wrapped(coded("23505", "duplicate key value"))],
    ["a check violation", coded("23514")],
    ["a syntax error", coded("42601")],
    ["an API error", AppError.notFound("Run")],
    ["a plain bug", new TypeError("x is undefined")],
    ["a message that only mentions a connection", new Error("the connection string is invalid")],
    ["nothing", undefined],
  ])("%s is not", (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("an outage is a 503 database_unavailable with Retry-After, never a 500", async () => {
    const response = toErrorResponse(wrapped(coded("ECONNREFUSED")));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toEqual({ error: { code: "database_unavailable", message: "The database is unavailable; try again in a few seconds" } });
    expect(toErrorResponse(wrapped(coded("23505"))).status).toBe(500);
  });
});
