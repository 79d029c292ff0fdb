/**
 * A TCP port on 127.0.0.1 that nothing listens on now, as the kernel hands one out for `listen(0)`.
 * Tests and benches that start a server process need a port before the process exists; a random
 * pick from a fixed range of our own ran into the machine's own services (RabbitMQ's epmd on
 * 4369, NATS on 4222, PostgreSQL on 5432) and failed CI with EADDRINUSE.
 */
import { createServer } from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
