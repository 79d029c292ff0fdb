import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startServer, type LocalServer } from "@/lib/core/hooks/testing/fakes";
import { outboundConfig } from "./outbound-config";
import { guardedLookup, preflight, type LookupFunction, type OutboundPolicy } from "./outbound-guard";
import { OutboundError, sendOutbound } from "./outbound-request";

let server: LocalServer;
beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 200, { ok: true }));
});
afterAll(() => server.close());

/** A resolver that answers from a table, in order per name: no real DNS in these tests. */
function fakeDns(table: Record<string, string[]>): LookupFunction {
  const asked: Record<string, number> = {};
  return (hostname, _options, callback) => {
    const answers = table[hostname];
    if (!answers) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
    const i = Math.min((asked[hostname] = (asked[hostname] ?? -1) + 1), answers.length - 1);
    callback(null, [{ address: answers[i], family: answers[i].includes(":") ? 6 : 4 }]);
  };
}

const get = (policy: OutboundPolicy, url: string) =>
  sendOutbound(policy, { url: new URL(url), method: "GET", headers: {}, timeoutMs: 2_000, maxResponseBytes: 1024 });

describe("the outbound guard", () => {
  it("checks the addresses a name resolves to, inside the connection's own lookup", async () => {
    const lookup = fakeDns({ "innocent.test": ["127.0.0.1"] });
    const before = server.requests.length;
    await expect(get({ allowPrivateHosts: [], lookup }, `http://innocent.test:${server.port}/`)).rejects.toMatchObject({
      kind: "refused",
      message: expect.stringMatching(/^refused: innocent\.test is not an allowed destination/),
    });
    expect(server.requests.length).toBe(before);
    const allowed = await get({ allowPrivateHosts: ["innocent.test"], lookup }, `http://innocent.test:${server.port}/`);
    expect(allowed.status).toBe(200);
  });

  it("asks again on every connection: a name that turns private on its second answer is refused then", async () => {
    const lookup = fakeDns({ "rebind.test": ["93.184.216.34", "10.0.0.1"] });
    const check = (hostname: string) =>
      new Promise<string>((resolve) => guardedLookup({ allowPrivateHosts: [], lookup })(hostname, {}, (err, address) => resolve(err ? err.message : String(address))));
    expect(await check("rebind.test")).toBe("93.184.216.34");
    expect(await check("rebind.test")).toMatch(/^refused: rebind\.test is not an allowed destination/);
  });

  it("refuses names that only mean the host's own network before any DNS question", () => {
    const lookup: LookupFunction = () => {
      throw new Error("DNS must not be asked");
    };
    for (const url of ["https://metadata.google.internal/", "https://LOCALHOST./", "https://db.localhost/", "https://printer.local/", "https://metadata/"]) {
      expect(() => preflight(new URL(url), { allowPrivateHosts: [], lookup }), url).toThrow(/is not an allowed destination/);
    }
    expect(() => preflight(new URL("https://db.internal/"), { allowPrivateHosts: ["*.internal"] })).not.toThrow();
    expect(() => preflight(new URL("ftp://example.com/"), { allowPrivateHosts: ["*"] })).toThrow("refused: only http and https URLs (got ftp:)");
  });

  it("says the same for a closed port and an unreachable host it was allowed to try", async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const error = await get({ allowPrivateHosts: ["127.0.0.1"] }, `http://127.0.0.1:${closed.port}/`).catch((e: OutboundError) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ kind: "unreachable", message: "could not connect to 127.0.0.1" });
  });
});

describe("the allow-list from the operator's settings", () => {
  it("is one list; the older names still count", () => {
    expect(outboundConfig({})).toEqual({ policy: { allowPrivateHosts: [] }, webhookOnlyHosts: [] });
    expect(outboundConfig({ allowPrivateHosts: [" 127.0.0.1", "*.Corp.example"] }).policy.allowPrivateHosts).toEqual(["127.0.0.1", "*.corp.example"]);
    expect(outboundConfig({ allowPrivateNetwork: true }).policy.allowPrivateHosts).toEqual(["*"]);
    expect(outboundConfig({ webhookAllowHosts: ["ci.corp"] })).toEqual({ policy: { allowPrivateHosts: ["ci.corp"] }, webhookOnlyHosts: ["ci.corp"] });
  });
});
