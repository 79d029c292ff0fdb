/**
 * The durable peer of `npm run bench:ingest-floor`: the bare server (bench/bare-server.mjs) that
 * also writes each call's body to PostgreSQL before it answers `{}`, the least any design that
 * records every hook call durably must do. FLOOR_MODE=each: one INSERT a call on a pool of 10;
 * FLOOR_MODE=group: the calls that arrive while the last INSERT ran go in one multi-row INSERT (one
 * commit), as Hookplane's group commit does. FLOOR_DATABASE_URL names the database (its table
 * floor_events is made anew). Prints its URL as its one stdout line.
 */
import { createServer } from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
await pool.query("drop table if exists floor_events; create table floor_events (id bigserial primary key, session text, data jsonb not null, ts timestamptz default now())");
const grouped = process.env.FLOOR_MODE !== "each";
const EMPTY = "{}";

let pending = [];
let flushing = false;
async function flush() {
  if (flushing || pending.length === 0) return;
  flushing = true;
  const batch = pending;
  pending = [];
  try {
    await pool.query("insert into floor_events (session, data) select * from unnest($1::text[], $2::jsonb[])", [batch.map((b) => b.session), batch.map((b) => b.text)]);
    for (const b of batch) b.answer(200);
  } catch {
    for (const b of batch) b.answer(500);
  }
  flushing = false;
  void flush();
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    const text = Buffer.concat(chunks).toString("utf8");
    let session;
    try {
      session = String(JSON.parse(text).session_id ?? "");
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"code":"bad_json"}}');
      return;
    }
    const answer = (status) => (status === 200 ? res.writeHead(200, { "content-type": "application/json", "content-length": EMPTY.length }).end(EMPTY) : res.writeHead(status).end());
    if (grouped) {
      pending.push({ session, text, answer });
      void flush();
      return;
    }
    await pool.query("insert into floor_events (session, data) values ($1, $2)", [session, text]).then(() => answer(200), () => answer(500));
  });
});

server.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => void pool.end().then(() => process.exit(0))).closeAllConnections());
