/**
 * The hash chains' sealer as the web processes report it on /metrics (hookplane_chain_*, read with
 * an admin's token): the rows a level's calls left for it and the time its seals held the chain,
 * and a wait until every row is sealed, so a level starts with the last one's rows sealed (on
 * PGlite the sealer runs on the thread that answers the hook calls: a backlog left over would be
 * charged to the next level).
 */

export interface SealTotals {
  /** Rows the web processes' periodic sealers linked so far. */
  rows: number;
  /** Seconds their seals took so far (wall time; on PostgreSQL the seal's transaction, on PGlite also its read before the lock). */
  seconds: number;
}

async function metricsOf(url: string, admin: string): Promise<{ name: string; value: number }[]> {
  const answer = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
  if (!answer.ok) throw new Error(`GET ${url}/metrics answered ${answer.status}`);
  return (await answer.text())
    .split("\n")
    .filter((line) => line.startsWith("hookplane_chain_"))
    .map((line) => {
      const [series, value] = line.split(/ (?=\S+$)/);
      return { name: series.replace(/\{.*$/, ""), value: Number(value) };
    });
}

const sum = (samples: { name: string; value: number }[], name: string) => samples.filter((s) => s.name === name).reduce((total, s) => total + s.value, 0);

/** What the sealers of every web process did so far. */
export async function sealTotals(urls: string[], admin: string): Promise<SealTotals> {
  let rows = 0;
  let seconds = 0;
  for (const url of urls) {
    const samples = await metricsOf(url, admin);
    rows += sum(samples, "hookplane_chain_rows_sealed_total");
    seconds += sum(samples, "hookplane_chain_seal_duration_seconds_sum");
  }
  return { rows, seconds };
}

/** Waits until no chained row is left unsealed (the database's count, served by any web process). */
export async function waitUntilSealed(url: string, admin: string, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    const backlog = (await metricsOf(url, admin)).filter((s) => s.name === "hookplane_chain_unsealed_rows");
    if (backlog.length === 0) throw new Error(`${url}/metrics has no hookplane_chain_unsealed_rows: a server built before it? (npm run build)`);
    if (backlog.every((s) => s.value === 0)) return;
    if (Date.now() > deadline) throw new Error(`rows still unsealed after ${timeoutMs / 1000} s: is the sealer running?`);
  }
}
