/**
 * `npx tsx bench/cpu-profile-top.ts <file.cpuprofile> [n]`: where a V8 CPU profile (node
 * --cpu-prof) spent its time — the top n functions by self time, self time summed by package or
 * source file, and self time charged to the nearest project function up the stack (so time in
 * drizzle, postgres.js or a native write shows under the query or step of ours that caused it),
 * and the top n by inclusive time, so a benchmark's hot path can be read without opening DevTools.
 * PROFILE_TIMELINE=1 prints the busy milliseconds of each second; PROFILE_WINDOW=<from>-<to>
 * (seconds) keeps only that stretch (a load level, not the server's start or the read-back).
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = "30"] = process.argv.slice(2);
if (!file) {
  console.error("usage: tsx bench/cpu-profile-top.ts <file.cpuprofile> [n]");
  process.exit(1);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
// PROFILE_WINDOW="12-20": only the samples between those seconds from the profile's start (a
// benchmark's level, not its setup); PROFILE_TIMELINE=1 prints the busy time of each second, to find it.
const window = process.env.PROFILE_WINDOW?.split("-").map(Number);
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
const busyBySecond: number[] = [];
const selfUs = new Map<number, number>();
let elapsedUs = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsedUs += delta;
  const second = Math.floor(elapsedUs / 1e6);
  if (!idleIds.has(id)) busyBySecond[second] = (busyBySecond[second] ?? 0) + delta;
  if (window && (elapsedUs < window[0] * 1e6 || elapsedUs >= window[1] * 1e6)) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
if (process.env.PROFILE_TIMELINE) console.log(`busy ms by second: ${[...busyBySecond].map((us, s) => `${s}:${Math.round((us ?? 0) / 1000)}`).join(" ")}`);
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** node_modules/<pkg>, the project file, or V8's own bucket ((garbage collector), (idle), ...). */
function where(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const path = url.replace(/^file:\/\//, "");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1];
  if (path.startsWith("node:")) return path;
  const project = /\/(app|bench|db|lib|server)\/.*$/.exec(path);
  return project ? project[0].slice(1) : path;
}

// The production server's bundle (dist/server.mjs) is ours too: its functions keep their names.
const isProject = (url: string) => (/\/(app|db|lib)\//.test(url) || url.endsWith("/dist/server.mjs")) && !url.includes("node_modules");
const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || "(anonymous)"}  ${where(url, functionName)}${url ? `:${lineNumber + 1}` : ""}`;
};
/** The nearest frame of ours at or above a node; V8's own buckets stand for themselves. */
function projectFrame(id: number): string {
  const start = nodes.get(id)!;
  if (!start.callFrame.url && start.callFrame.functionName.startsWith("(")) return start.callFrame.functionName;
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const node = nodes.get(at)!;
    if (isProject(node.callFrame.url)) return label(node);
  }
  return "(outside the project)";
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
const byProjectFrame = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  const place = where(url, functionName);
  const key = `${functionName || "(anonymous)"}  ${place}${url ? `:${lineNumber + 1}` : ""}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
  const frame = projectFrame(id);
  byProjectFrame.set(frame, (byProjectFrame.get(frame) ?? 0) + us);
}

const print = (title: string, entries: Map<string, number>, n: number) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print(`top ${count} functions by self time`, byFunction, Number(count));
print("self time by package or file", byPlace, 25);
// Who calls the heaviest functions: their self time by the four frames above them.
console.log("\ncallers of the 8 heaviest functions (four frames up, heaviest chains)");
const heaviest = [...byFunction].filter(([key]) => !key.startsWith("(")).sort((a, b) => b[1] - a[1]).slice(0, 8);
for (const [key, us] of heaviest) {
  const chains = new Map<string, number>();
  for (const [id, self] of selfUs) {
    if (label(nodes.get(id)!) !== key) continue;
    const chain: string[] = [];
    for (let at = parents.get(id); at !== undefined && chain.length < 4; at = parents.get(at)) chain.push(label(nodes.get(at)!));
    const joined = chain.join("  <  ");
    chains.set(joined, (chains.get(joined) ?? 0) + self);
  }
  console.log(`${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
  for (const [chain, self] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 3)) {
    console.log(`        ${(self / 1000).toFixed(0).padStart(6)} ms  < ${chain}`);
  }
}
print(`top ${count} project functions, charged with the self time of everything they call outside the project`, byProjectFrame, Number(count));

// Inclusive time: each sample counted once for every distinct function on its stack (an async
// function's continuations count under it only from where they resume: the microtask queue).
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const node = nodes.get(at)!;
    if (!node.callFrame.url && node.callFrame.functionName.startsWith("(")) continue;
    seen.add(label(node));
  }
  for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + us);
}
print(`top ${count} functions by inclusive time`, inclusive, Number(count));

// Where each sample's work began: the outermost frame of ours on its stack (an async function's
// continuation resumes from the microtask queue, so this is the step of ours that resumed), or,
// with none of ours, the outermost frame that is not the event loop's own.
const LOOP_FRAMES = new Set(["(root)", "processTicksAndRejections", "runMicrotasks", "listOnTimeout", "processTimers", "callbackTrampoline"]);
const outermost = new Map<string, number>();
for (const [id, us] of selfUs) {
  let ours: string | undefined;
  let first: string | undefined;
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const node = nodes.get(at)!;
    if (isProject(node.callFrame.url)) ours = label(node);
    if (!LOOP_FRAMES.has(node.callFrame.functionName)) first = label(node);
  }
  const key = ours ?? `(not ours) ${first ?? "(loop)"}`;
  outermost.set(key, (outermost.get(key) ?? 0) + us);
}
print(`top ${count} by where the work began (the outermost frame of ours)`, outermost, Number(count));
