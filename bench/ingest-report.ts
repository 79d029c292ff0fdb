/**
 * The report of npm run bench:ingest (bench/ingest.ts): a level's figures, the table of every
 * level, where a call's CPU goes, and the targets, PASS or FAIL.
 */
import os from "node:os";
import { median, summarize } from "./bench-support";
import { DEPLOYMENTS, PACED_SESSIONS, deploymentName, type Deployment } from "./ingest-config";
import type { Measured } from "./ingest-load";

export interface Figures {
  calls: number;
  wallMs: number;
  rate: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface Row {
  deployment: Deployment;
  /** "warm-up", the number of sessions, or "200 paced". */
  label: string;
  /** Which round of its level (1 for the warm-up and the paced scenario). */
  round: number;
  sessions: number;
  paced: boolean;
  hookplane: Figures;
  bare?: Figures;
  problems: number;
  loadStart: number;
  loadEnd: number;
  /** CPU ms per call of each group of processes (undefined: not readable here). */
  cpu: { hookplane: CpuPerCall; bare?: CpuPerCall };
}

export type CpuPerCall = Record<string, number | undefined>;

export function perCall(used: Record<string, number | undefined>, calls: number): CpuPerCall {
  return Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms === undefined ? undefined : ms / calls]));
}

export const cpuText = (cpu: CpuPerCall) =>
  Object.entries(cpu)
    .map(([name, ms]) => `${name} ${ms === undefined ? "n/a" : ms.toFixed(2)}`)
    .join(", ");

export function figures(m: Measured): Figures {
  const { p50, p99 } = summarize(m.latencies);
  return { calls: m.calls, wallMs: m.wallMs, rate: m.calls / (m.wallMs / 1000), p50, p99, errors: m.errors.length };
}

/** p50/p99 of each hook event's answers, and how many of the level's slowest 1% each has. */
export function tailByEvent(m: Measured): string {
  const sorted = [...m.latencies].sort((a, b) => a - b);
  const cut = sorted[Math.floor(sorted.length * 0.99)] ?? Infinity;
  return [...m.byEvent]
    .map(([event, times]) => {
      const { p50, p99 } = summarize(times);
      return `${event} p50 ${ms(p50)} p99 ${ms(p99)} (${times.filter((t) => t >= cut).length} of the slowest 1%)`;
    })
    .join(", ");
}

export const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");

export function printFirst(label: string, lines: string[]) {
  if (lines.length === 0) return;
  console.log(`    ${lines.length} ${label}, the first:`);
  for (const line of lines.slice(0, 5)) console.log(`      ${line}`);
}

/** A level's label with its round, from the second round on ("50", "50 #2"). */
export const roundLabel = (label: string, round: number) => (round > 1 ? `${label} #${round}` : label);

export function printTable(rows: Row[]) {
  const header = ["database", "sessions", "calls", "wall s", "calls/s", "p50 ms", "p99 ms", "errors", "read back", "bare calls/s", "bare p50", "bare p99", "ratio", "load start→end"];
  const lines = rows.map((r) => {
    const h = r.hookplane;
    return [
      deploymentName(r.deployment),
      roundLabel(r.label, r.round),
      String(h.calls),
      (h.wallMs / 1000).toFixed(1),
      h.rate.toFixed(0),
      ms(h.p50),
      ms(h.p99),
      String(h.errors),
      r.problems === 0 ? "ok" : `${r.problems} wrong`,
      r.bare ? r.bare.rate.toFixed(0) : "-",
      r.bare ? ms(r.bare.p50) : "-",
      r.bare ? ms(r.bare.p99) : "-",
      r.bare ? `${((h.rate / r.bare.rate) * 100).toFixed(1)}%` : "-",
      `${r.loadStart.toFixed(2)}→${r.loadEnd.toFixed(2)}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}

/**
 * Where a call's CPU goes at each deployment's busiest level: the ceiling of calls/s on this
 * machine is its cores over the sum (the client's share is the benchmark's own, not Hookplane's).
 */
export function printCpu(rows: Row[]) {
  console.log("\nCPU ms a call (web processes, database backends, this client; the bare server beside):");
  for (const d of DEPLOYMENTS) {
    const busiest = rows.filter((r) => r.deployment === d && !r.paced && r.label !== "warm-up").at(-1);
    if (!busiest) continue;
    const sum = (cpu: CpuPerCall) => Object.values(cpu).reduce<number>((n, ms) => n + (ms ?? 0), 0);
    const cores = os.cpus().length;
    console.log(
      `  ${deploymentName(d).padEnd(12)} at ${busiest.label} sessions: ${cpuText(busiest.cpu.hookplane)} = ${sum(busiest.cpu.hookplane).toFixed(2)} ms, ` +
        `at most ~${((cores * 1000) / sum(busiest.cpu.hookplane)).toFixed(0)} calls/s on ${cores} cores` +
        (busiest.cpu.bare ? ` | bare ${cpuText(busiest.cpu.bare)} = ${sum(busiest.cpu.bare).toFixed(2)} ms` : ""),
    );
  }
}

/**
 * The targets, each PASS or FAIL (or n/a when its level was not run); they never fail the run. A
 * level's figure is the median of its rounds', each round's listed beside it.
 */
export function printTargets(rows: Row[]) {
  const rounds = (d: Deployment, label: string) => rows.filter((r) => r.deployment === d && r.label === label);
  const say = (label: string, pass: boolean | undefined, got: string) => console.log(`  ${pass === undefined ? "n/a " : pass ? "PASS" : "FAIL"}  ${label}: ${got}`);
  const ofRounds = (values: number[], text: (n: number) => string) => (values.length > 1 ? `${text(median(values))} (median of ${values.length} rounds: ${values.map(text).join(", ")})` : text(values[0]));
  console.log("\nTargets:");
  for (const d of DEPLOYMENTS) {
    const name = deploymentName(d);
    // Behind PgBouncer is shown, not held to the targets (they name PGlite and PostgreSQL).
    if (d.pooler) continue;
    const ratios = rounds(d, "50").map((r) => r.hookplane.rate / r.bare!.rate);
    const floor = d.db === "postgres" ? 0.4 : 0.25;
    const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
    say(`${name} at 50 sessions ≥ ${floor * 100}% of bare's calls/s`, ratios.length === 0 ? undefined : median(ratios) >= floor, ratios.length === 0 ? "level not run" : ofRounds(ratios, percent));
    if (d.db === "postgres") {
      const paced = rounds(d, `${PACED_SESSIONS} paced`)[0];
      say(`${name} paced ${PACED_SESSIONS} sessions p99 < 25 ms`, paced ? paced.hookplane.p99 < 25 : undefined, paced ? `${ms(paced.hookplane.p99)} ms` : "not run");
    }
    const overs = rounds(d, "1").map((r) => r.hookplane.p50 - r.bare!.p50);
    say(
      `${name} 1 session p50 within 5 ms of bare's`,
      overs.length === 0 ? undefined : median(overs) <= 5,
      overs.length === 0 ? "level not run" : ofRounds(overs, (n) => `+${ms(n)} ms`),
    );
  }
}
