/**
 * The production web process starts Next on the configuration its build serialized
 * (`<distDir>/required-server-files.json`), as Next's own standalone server does, instead of
 * letting Next find and load next.config.ts. Loading a TypeScript config makes Next transpile it
 * at start with SWC, and SWC's native binary then stays mapped for the life of the process: ~24 MB
 * of an idle web process's ~238 MB (PGlite, session 23; issue 12 allows 250). Next's documented
 * `conf` option does not help here: the custom server's request handlers load the config again
 * from the file. The build's copy is the one the served pages were built with, so nothing changes
 * but what the start loads. Without a build's copy (never in production: `npm start` builds
 * first), Next loads the file as before.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/** What Next's standalone server sets: loadConfig then takes this config and reads no file. */
const SERIALIZED_CONFIG = "__NEXT_PRIVATE_STANDALONE_CONFIG";

/** Hands Next the build's config; false when there is no build to take it from. */
export function useBuiltNextConfig(root: string, distDir: string | undefined): boolean {
  if (process.env[SERIALIZED_CONFIG]) return true;
  let config: unknown;
  try {
    config = (JSON.parse(readFileSync(path.join(root, distDir ?? ".next", "required-server-files.json"), "utf8")) as { config?: unknown }).config;
  } catch {
    return false;
  }
  if (!config || typeof config !== "object") return false;
  process.env[SERIALIZED_CONFIG] = JSON.stringify(config);
  return true;
}
