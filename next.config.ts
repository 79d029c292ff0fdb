import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native/WASM and long-lived clients stay outside the bundle and are shared with server.ts.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "pg-boss", "pino", "ws"],
  poweredByHeader: false,
  // A separate build folder when asked (parallel builds on one checkout, benchmarks).
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  typedRoutes: false,
  // `npm test` type-checks the whole tree once with tsc; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
