/**
 * `npx tsx bench/cpu-profile-top.ts <file.cpuprofile> [n]`: where a V8 CPU profile (node
 * --cpu-prof) spent its time — the top n functions by self time, and self time summed by package
 * or source file, so a benchmark's hot path can be read without opening DevTools.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
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
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
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

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  const place = where(url, functionName);
  const key = `${functionName || "(anonymous)"}  ${place}${url ? `:${lineNumber + 1}` : ""}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
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
