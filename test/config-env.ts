/**
 * Tests that change the environment: the configuration is parsed once per process
 * (lib/platform/config), so a change takes effect through these, which also make the next
 * getConfig() read process.env again.
 */
import { resetConfig } from "@/lib/platform/config/config";

/** Sets (a string) or removes (undefined) each variable; returns what puts them back. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const previous = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  apply(vars);
  return () => apply(previous);
}

function apply(vars: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  resetConfig();
}
