/**
 * The bare peer of `npm run bench:ingest`: the least an HTTP hook endpoint can do on node:http.
 * It reads the whole body, parses it as JSON and answers `{}` (Claude Code's "no opinion"), so
 * the benchmark's ratio says what Hookplane costs over the HTTP and JSON work any endpoint pays
 * on this machine. Listens on 127.0.0.1, a free port; prints its URL as its one stdout line.
 */
import { createServer } from "node:http";

const EMPTY = "{}";

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"code":"bad_json"}}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": EMPTY.length }).end(EMPTY);
  });
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  process.stdout.write(`http://127.0.0.1:${port}\n`);
});

for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
