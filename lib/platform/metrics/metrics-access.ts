/**
 * Who may read /metrics: the scraper with HOOKPLANE_METRICS_TOKEN as its Bearer token (compared
 * in constant time), or an admin (API token or session). Nobody else: no credential or a wrong
 * one is a 401, another role a 403. Without HOOKPLANE_METRICS_TOKEN only admins can scrape.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Db } from "@/db/client";
import { requirePrincipal } from "@/lib/platform/api/route";
import { bearerToken } from "@/lib/platform/auth/principal";
import { getConfig } from "@/lib/platform/config/config";

/** Equal texts, in time that does not depend on where they differ (or on their lengths). */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The metrics token was presented (the worker's metrics port takes nothing else). */
export function presentsMetricsToken(headers: { get(name: string): string | null }, token: string | undefined = getConfig().HOOKPLANE_METRICS_TOKEN): boolean {
  const presented = bearerToken(headers);
  return token !== undefined && presented !== undefined && sameSecret(presented, token);
}

export async function requireMetricsAccess(db: Db, request: Request): Promise<void> {
  if (presentsMetricsToken(request.headers)) return;
  await requirePrincipal(db, request, "admin");
}
