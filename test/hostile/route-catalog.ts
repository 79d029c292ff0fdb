/**
 * Every route handler under app/api/v1, found from the file tree (so a new route is fuzzed the
 * day it is added): its URL template, its `[param]` names and each exported method with the
 * schemas `apiRoute` attached to it.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { ApiHandler, RouteSchemas } from "@/lib/platform/api/route";

export const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

export interface CatalogRoute {
  /** `/api/v1/hooks/[id]/versions` */
  template: string;
  params: string[];
  method: RouteMethod;
  handler: ApiHandler;
  schemas: RouteSchemas;
}

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return name === "route.ts" ? [full] : [];
  });
}

export async function loadRouteCatalog(root = path.resolve(import.meta.dirname, "../../app/api/v1")): Promise<CatalogRoute[]> {
  const routes: CatalogRoute[] = [];
  for (const file of routeFiles(root).sort()) {
    const relative = path.relative(root, path.dirname(file)).split(path.sep).filter(Boolean);
    const template = `/api/v1/${relative.join("/")}`.replace(/\/$/, "");
    const params = relative.filter((part) => part.startsWith("[")).map((part) => part.slice(1, -1));
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of ROUTE_METHODS) {
      const handler = mod[method] as ApiHandler | undefined;
      if (typeof handler !== "function") continue;
      if (!handler.schemas) throw new Error(`${template} ${method} does not go through apiRoute`);
      routes.push({ template, params, method, handler, schemas: handler.schemas });
    }
  }
  return routes;
}
