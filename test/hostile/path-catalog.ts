/**
 * Every page and every route handler under app/ as the server's router sees them, found from the
 * file tree (so a new one is fuzzed the day it is added): its URL template (route groups dropped,
 * `[param]` segments kept) and, for a route, the methods its file exports. Read as text, not
 * imported: the tests that use it drive the real server, not the modules.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface CatalogPath {
  /** `/agents/[id]/connect`, `/api/v1/hooks/[id]/versions`. */
  template: string;
  kind: "page" | "route";
  /** GET for a page; the exported handlers of a route. */
  methods: string[];
}

const EXPORTED_METHOD = /^export (?:const|async function) (GET|POST|PUT|PATCH|DELETE)\b/gm;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

export function loadPathCatalog(root = path.resolve(import.meta.dirname, "../../app")): CatalogPath[] {
  const catalog: CatalogPath[] = [];
  for (const file of files(root).sort()) {
    const name = path.basename(file);
    if (name !== "page.tsx" && name !== "route.ts") continue;
    const segments = path.relative(root, path.dirname(file)).split(path.sep).filter((s) => s && !/^\(.*\)$/.test(s));
    const template = `/${segments.join("/")}`;
    if (name === "page.tsx") catalog.push({ template, kind: "page", methods: ["GET"] });
    else catalog.push({ template, kind: "route", methods: [...readFileSync(file, "utf8").matchAll(EXPORTED_METHOD)].map((m) => m[1]) });
  }
  return catalog;
}

/** The template's segments, `[param]` ones marked. */
export function segmentsOf(template: string): { text: string; param: boolean }[] {
  return template
    .split("/")
    .filter(Boolean)
    .map((text) => ({ text, param: text.startsWith("[") }));
}
