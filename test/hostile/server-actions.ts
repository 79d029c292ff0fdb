/**
 * Every server action of the product: the exports of the files under lib/ that start with
 * "use server" (found from the tree, so a new action is called by the suites the day it is added).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export type ServerAction = (...args: unknown[]) => Promise<unknown>;

export async function loadServerActions(): Promise<[string, ServerAction][]> {
  const root = path.resolve(import.meta.dirname, "../../lib");
  const files = (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .filter((f) => readFileSync(path.join(root, f), "utf8").startsWith('"use server"'))
    .sort();
  const actions: [string, ServerAction][] = [];
  for (const file of files) {
    const mod = (await import(path.join(root, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) if (typeof value === "function") actions.push([name, value as ServerAction]);
  }
  return actions;
}
