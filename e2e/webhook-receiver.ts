/**
 * A webhook receiver on this machine for the journeys whose notices arrive by webhook (decision
 * links, alerts): it keeps each JSON body it gets and answers `{}`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export async function webhookReceiver<T = Record<string, unknown>>() {
  const bodies: T[] = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      bodies.push(JSON.parse(text) as T);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => new Promise((r) => server.close(r)) };
}
