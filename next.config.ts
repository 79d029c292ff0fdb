import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native/WASM and long-lived clients stay outside the bundle and are shared with server.ts.
  // The OpenTelemetry SDK and prom-client stay plain imports, as in server.ts: one copy per process.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "postgres",
    "pg-boss",
    "pino",
    "ws",
    "prom-client",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
    "@opentelemetry/core",
    // The shell detector's parser loads its WebAssembly from node_modules at run time.
    "web-tree-sitter",
    "tree-sitter-bash",
  ],
  poweredByHeader: false,
  // A separate build folder when asked (parallel builds on one checkout, benchmarks).
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  typedRoutes: false,
  // The same cap as the API's (MAX_BODY_BYTES); server.ts refuses larger bodies with a 413 before
  // Next reads them, so this limit (which Next reports as a 500) is never the one that trips.
  experimental: { serverActions: { bodySizeLimit: "1mb" } },
  // `npm test` type-checks the whole tree once with tsc; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
