/**
 * Compiles the custom server and the worker to plain JavaScript (dist/), so production runs
 * node, not a TypeScript loader. Our own code (the @/ aliases) is bundled; every package stays an
 * import of node_modules, resolved at run time as in development.
 */
import { build } from "esbuild";
import { writeBuildStamp } from "./build-stamp.mjs";
import { NODE_BUNDLE } from "./node-bundle.mjs";

await build({
  ...NODE_BUNDLE,
  entryPoints: { server: "server.ts", worker: "worker.ts", migrate: "db/migrate-cli.ts", "pglite-thread": "db/pglite-thread-worker.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
});

// `next build` ran just before (npm run build): the whole build now matches the sources.
writeBuildStamp();
