/**
 * npm run bench:signin — what a failed sign-in costs for an email with an account and for one
 * without, side by side (they must match, or answer times enumerate accounts), and a successful
 * sign-in for scale. Calls signIn() itself, the function the sign-in server action runs, on a
 * fresh database: embedded PGlite, or the PostgreSQL of DATABASE_URL. Each attempt comes from its
 * own address, so the throttle never answers instead of the password check.
 */
import { performance } from "node:perf_hooks";
import { addPerson } from "@/test/people";
import { createTestDatabase } from "@/test/database";
import { signIn } from "@/lib/platform/auth/account-service";
import { hashPassword } from "@/lib/platform/auth/password";
import { runBench, summarize } from "./bench-support";

const ROUNDS = Number(process.env.BENCH_SIGNIN_ROUNDS ?? 40);
const fmt = (n: number) => n.toFixed(1).padStart(7);

async function main() {
  const t = await createTestDatabase();
  try {
    await addPerson(t.db, { email: "known@example.com", passwordHash: await hashPassword("the right password"), role: "viewer" });
    let address = 0;
    const attempt = async (email: string, password: string) => {
      address++;
      const started = performance.now();
      await signIn(t.db, { email, password, address: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}` }).catch(() => {});
      return performance.now() - started;
    };
    // Warm-up: the first unknown email makes the process's dummy hash.
    await attempt("known@example.com", "wrong password");
    await attempt("warm-up@example.com", "wrong password");

    const samples = { known: [] as number[], unknown: [] as number[], success: [] as number[] };
    // Interleaved so that load on the machine falls on both sides alike.
    for (let i = 0; i < ROUNDS; i++) {
      samples.known.push(await attempt("known@example.com", `wrong password ${i}`));
      samples.unknown.push(await attempt(`nobody-${i}@example.com`, `wrong password ${i}`));
      samples.success.push(await attempt("known@example.com", "the right password"));
    }
    const known = summarize(samples.known);
    const unknown = summarize(samples.unknown);
    const success = summarize(samples.success);
    console.log(`sign-in on ${t.kind}, ${ROUNDS} rounds (ms)`);
    console.log("                         p50     p95");
    console.log(`known email, wrong   ${fmt(known.p50)} ${fmt(known.p95)}`);
    console.log(`unknown email        ${fmt(unknown.p50)} ${fmt(unknown.p95)}`);
    console.log(`known email, right   ${fmt(success.p50)} ${fmt(success.p95)}`);
    console.log(`unknown / known p50: ${(unknown.p50 / known.p50).toFixed(3)} (1.000 = indistinguishable; the test allows 0.8-1.2)`);
  } finally {
    await t.drop();
  }
}

runBench(main);
