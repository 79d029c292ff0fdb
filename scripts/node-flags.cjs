/**
 * The Node.js flags every Hookplane server and worker process starts with, wherever it is started
 * (npm start, npm run worker, `hookplane worker`, the image, the Helm chart, compose; the tests and
 * benchmarks that start the production server). deploy/deploy-files.test.ts checks that the
 * launchers written as data (package.json, the Dockerfile, the chart, compose) carry these.
 *
 * `--max-semi-space-size=64` (MiB): V8's young generation may grow to 2 × 64 MiB instead of Node
 * 20's 2 × 16 MiB. A bridged hook call allocates about 110 KB and waits a few milliseconds on its
 * commit, so at a few thousand calls a second the default size collected every ~40 ms and promoted
 * what was still waiting to the old generation, to be marked and compacted later. Measured with
 * bench:ingest (PostgreSQL, 50 sessions): garbage collection on the main thread 1,434 ms → 743 ms
 * over the same load, calls/s +10%. It has to be a flag at start: V8 sizes the heap when the
 * process begins, and v8.setFlagsFromString afterwards changed nothing (measured). The young
 * generation grows only under allocation, so an idle process stays as small as before.
 */
"use strict";

const SERVER_NODE_FLAGS = Object.freeze(["--max-semi-space-size=64"]);

module.exports = { SERVER_NODE_FLAGS };
