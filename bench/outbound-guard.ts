/**
 * The outbound guard's cost per webhook call (issue 17: under 5% of a webhook's time without it).
 * A local server on 127.0.0.1 answers `{}`; the same webhook hook is dispatched through the hook
 * runtime many times with three transports:
 * - fetch, unguarded: global fetch, as webhooks were sent before the guard;
 * - unguarded: the guarded transport's own request code (sendWith) with the guard left out;
 * - guarded: lib/core/outbound's sendOutbound (127.0.0.1 on the allow-list, so the call connects).
 * Then the guard's own work alone: the preflight every request pays and the resolved-address check
 * a new connection adds (with a resolver that answers at once; keep-alive runs it once per
 * connection, not per call). The machine's noise shows in p95 and mean; p50 is the figure to read.
 *
 *   npm run bench:guard [-- --calls 6000]
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createHookRuntime, type HookEvent, type RuntimeHook } from "../lib/core/hooks";
import { guardedLookup, preflight, type LookupFunction, type OutboundPolicy } from "../lib/core/outbound/outbound-guard";
import { sendOutbound, sendWith, type OutboundTransport } from "../lib/core/outbound/outbound-request";

const calls = Number(process.argv[process.argv.indexOf("--calls") + 1]) || 6000;
const warmup = 300;
/** Transports take turns every batch, so drift and noise of the shared machine fall on all alike. */
const batch = 100;

/** Unguarded: sendOutbound's own request code and keep-alive, without preflight or lookup check. */
const plainAgent = new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: 5_000 });
const unguardedHttp: OutboundTransport = (_policy, req) => sendWith({ lookup: undefined, agent: plainAgent }, req);

/** Unguarded global fetch (undici), the way webhooks went out before the guard. */
const unguardedFetch: OutboundTransport = async (_policy, req) => {
  const response = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, redirect: "manual" });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, statusMessage: response.statusText, headers: Object.fromEntries(response.headers), body, totalBytes: body.length };
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function webhookRun(transport: OutboundTransport, url: string) {
  const runtime = createHookRuntime({ transport, outbound: { allowPrivateHosts: ["127.0.0.1"] } });
  const hooks: RuntimeHook[] = [{ id: "wh", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", action: { type: "webhook", url, method: "POST", headers: {} } }];
  let i = 0;
  /** One dispatch on a fresh event; µs. */
  return async (): Promise<number> => {
    const e: HookEvent = { type: "tool.pre", runId: "bench", agentName: "bench", ts: 0, data: { toolName: "write_file", toolInput: { path: `f-${i}.txt` }, toolCallId: `c${i++}` } };
    const start = performance.now();
    const result = await runtime.dispatch(hooks, e);
    const us = (performance.now() - start) * 1000;
    if (result.ledger[0].failed) throw new Error(`webhook failed: ${result.ledger[0].reason}`);
    return us;
  };
}

/** µs per call of the guard's own work: the preflight every request pays, and the lookup check a new connection adds. */
function checkCost(): { preflight: number; lookup: number } {
  const publicAnswer: LookupFunction = (_host, _opts, cb) => cb(null, [{ address: "93.184.216.34", family: 4 }]);
  const policy: OutboundPolicy = { allowPrivateHosts: ["127.0.0.1", "*.corp.example"], lookup: publicAnswer };
  const lookup = guardedLookup(policy);
  const url = new URL("https://hooks.example.com/agent");
  const n = 200_000;
  let start = performance.now();
  for (let i = 0; i < n; i++) preflight(url, policy);
  const preflightUs = ((performance.now() - start) * 1000) / n;
  let ok = 0;
  start = performance.now();
  for (let i = 0; i < n; i++) {
    lookup("hooks.example.com", {}, (err) => {
      if (!err) ok++;
    });
  }
  const lookupUs = ((performance.now() - start) * 1000) / n;
  if (ok !== n) throw new Error("the check refused a public address");
  return { preflight: preflightUs, lookup: lookupUs };
}

async function main() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  console.log(`outbound guard: ${calls} webhook dispatches per transport after ${warmup} warm-up, taking turns every ${batch}; µs per call`);
  const transports: [string, OutboundTransport][] = [
    ["fetch, unguarded (before)", unguardedFetch],
    ["node:http, unguarded", unguardedHttp],
    ["guarded (sendOutbound)", sendOutbound],
  ];
  const runs = transports.map(([name, transport]) => ({ name, call: webhookRun(transport, url), samples: [] as number[] }));
  for (const run of runs) for (let i = 0; i < warmup; i++) await run.call();
  for (let done = 0; done < calls; done += batch) {
    for (const run of runs) for (let i = 0; i < batch; i++) run.samples.push(await run.call());
  }
  const all = new Map(runs.map((r) => [r.name, r.samples]));
  const stats = new Map<string, { p50: number; p95: number; mean: number }>();
  for (const [name, samples] of all) {
    const sorted = [...samples].sort((a, b) => a - b);
    stats.set(name, { p50: percentile(sorted, 50), p95: percentile(sorted, 95), mean: samples.reduce((a, b) => a + b, 0) / samples.length });
  }
  console.log(`${"transport".padEnd(28)} ${"p50".padStart(8)} ${"p95".padStart(8)} ${"mean".padStart(8)}`);
  for (const [name, s] of stats) console.log(`${name.padEnd(28)} ${s.p50.toFixed(1).padStart(8)} ${s.p95.toFixed(1).padStart(8)} ${s.mean.toFixed(1).padStart(8)}`);
  const guarded = stats.get("guarded (sendOutbound)")!;
  const bare = stats.get("node:http, unguarded")!;
  const before = stats.get("fetch, unguarded (before)")!;
  const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)}%`;
  console.log(`guard cost per call (guarded vs node:http unguarded): p50 ${(guarded.p50 - bare.p50).toFixed(1)} µs (${pct(guarded.p50, bare.p50)}), mean ${(guarded.mean - bare.mean).toFixed(1)} µs (${pct(guarded.mean, bare.mean)})`);
  console.log(`guarded vs before (fetch): p50 ${pct(guarded.p50, before.p50)}, mean ${pct(guarded.mean, before.mean)} (negative = faster)`);
  const cost = checkCost();
  console.log(`the guard's own work: preflight ${cost.preflight.toFixed(2)} µs per request; resolved-address check ${cost.lookup.toFixed(2)} µs per new connection (instant resolver; keep-alive reuses connections)`);
  console.log(`preflight as a share of a webhook call before the guard (fetch p50): ${((cost.preflight / before.p50) * 100).toFixed(2)}%`);
  await new Promise((r) => server.close(r));
  plainAgent.destroy();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
