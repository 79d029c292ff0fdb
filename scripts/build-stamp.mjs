/**
 * Whether the build on disk (.next and dist/) was made from the sources as they are now: a
 * fingerprint of the paths, sizes and modification times of everything a build reads (stat only,
 * so checking costs milliseconds), written next to the build when it is made.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)));
const STAMP = path.join(root, ".next", "hookplane-build.json");
const SOURCES = ["app", "components", "lib", "db", "drizzle", "public", "server.ts", "worker.ts", "next.config.ts", "tsconfig.json", "package.json", "postcss.config.mjs", "scripts"];
const SKIP = /(^|\/)(node_modules|\.next|dist)(\/|$)|\.test\.tsx?$/;

export function sourceFingerprint(dir = root) {
  const hash = createHash("sha256");
  const visit = (rel) => {
    const full = path.join(dir, rel);
    if (!existsSync(full) || SKIP.test(rel)) return;
    const stat = statSync(full);
    if (stat.isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(path.join(rel, name));
      return;
    }
    hash.update(`${rel}\0${stat.size}\0${Math.trunc(stat.mtimeMs)}\n`);
  };
  for (const source of SOURCES) visit(source);
  return hash.digest("hex");
}

export function buildIsCurrent(fingerprint = sourceFingerprint()) {
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(path.join(root, "dist", "server.mjs"))) return false;
  try {
    return JSON.parse(readFileSync(STAMP, "utf8")).fingerprint === fingerprint;
  } catch {
    return false;
  }
}

export function writeBuildStamp() {
  writeFileSync(STAMP, JSON.stringify({ fingerprint: sourceFingerprint(), builtAt: new Date().toISOString() }));
}
