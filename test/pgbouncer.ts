/**
 * A real PgBouncer in transaction mode in front of the PostgreSQL server of DATABASE_URL, for the
 * tests of a deployment behind a pooler (docs/operations.md: HOOKPLANE_DB_POOLER). Debian's
 * `pgbouncer` package (`.ci/run` installs it); `pgbouncerBinary()` is undefined where it is missing.
 * It runs in the foreground as a child process on a free port, with its settings in a folder of its
 * own, and dies with `stop()`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

export interface PgBouncer {
  /** The same database as `directUrl` (on the PostgreSQL server it fronts), through the pooler. */
  urlOf(directUrl: string): string;
  output(): string;
  stop(): Promise<void>;
}

/** Debian installs it in /usr/sbin, which a user's PATH may lack. */
export function pgbouncerBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/sbin"].filter((d) => path.isAbsolute(d));
  return dirs.map((d) => path.join(d, "pgbouncer")).find((file) => existsSync(file));
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** PgBouncer in transaction mode, trusting local clients, in front of `serverUrl`'s server. */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error("pgbouncer is not installed (apt-get install -y pgbouncer)");
  const server = new URL(serverUrl);
  const port = await freePort();
  const folder = mkdtempSync(path.join(tmpdir(), "hookplane-pgbouncer-"));
  // Run as root, PgBouncer drops to `postgres` (-u), which must read its settings.
  chmodSync(folder, 0o755);
  const user = decodeURIComponent(server.username || "postgres");
  const password = decodeURIComponent(server.password);
  writeFileSync(path.join(folder, "users.txt"), `"${user}" "${password}"\n`, { mode: 0o644 });
  writeFileSync(
    path.join(folder, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || "5432"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(folder, "users.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 1000",
      "default_pool_size = 20",
      // node-postgres sends it on every connection; PgBouncer refuses any other startup setting.
      "ignore_startup_parameters = extra_float_digits",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0 ? ["-u", "postgres"] : [];
  let output = "";
  const child: ChildProcess = spawn(binary, [...asRoot, path.join(folder, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`pgbouncer did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    urlOf(directUrl) {
      const url = new URL(directUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    output: () => output,
    stop,
  };
}
