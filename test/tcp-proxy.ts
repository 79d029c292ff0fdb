/**
 * A TCP proxy in front of the test PostgreSQL, to take the database away from a process the way a
 * network does: `blackhole` holds every byte (a partition: connections stay open, nothing answers,
 * and what was sent arrives once it heals), `close` refuses and resets (the port closed).
 */
import net, { type AddressInfo } from "node:net";

export interface TcpProxy {
  port: number;
  /** The URL with host and port replaced by the proxy's. */
  proxied(url: string): string;
  blackhole(): void;
  close(): Promise<void>;
  /** Back to passing bytes; after `close`, listening again on the same port. */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: "pass" | "hold" = "pass";
  const sockets = new Set<net.Socket>();
  const held: (() => void)[] = [];

  const connect = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    if (mode === "pass") connect(client);
    else {
      client.pause();
      held.push(() => connect(client));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const setPaused = (paused: boolean) => {
    for (const socket of sockets) {
      if (paused) socket.pause();
      else socket.resume();
    }
  };

  return {
    port,
    proxied(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    blackhole() {
      mode = "hold";
      setPaused(true);
    },
    async close() {
      mode = "hold";
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.resetAndDestroy();
        sockets.clear();
        held.length = 0;
      });
    },
    async restore() {
      mode = "pass";
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
      setPaused(false);
      for (const start of held.splice(0)) start();
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  };
}
