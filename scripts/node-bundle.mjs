/**
 * How Hookplane's own TypeScript becomes what node runs in production (scripts/build-server.mjs)
 * and in the benchmarks that measure it as production runs it (bench/bundled.mjs): our code (the
 * @/ aliases) bundled, every package left an import of node_modules, resolved at run time.
 */
export const NODE_BUNDLE = Object.freeze({
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: "linked",
  logLevel: "warning",
  tsconfig: "tsconfig.json",
});
