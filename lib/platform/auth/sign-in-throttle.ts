/**
 * Sign-in throttling per client address and per account from one address. Keying the account
 * lock by address too means a stranger guessing at someone's password locks out only themself;
 * the address lock bounds how many accounts one client can try. Every lock that starts is audited.
 */
import type { Db } from "@/db/client";
import { logAudit } from "@/db/queries/audit";
import { countSignInAttempt, clearSignInFailures, uncountSignInAttempt, type AttemptPolicy } from "@/db/queries/sign-in-failures";
import { AppError } from "@/lib/platform/api/app-error";

const FORGET_AFTER_MS = 15 * 60 * 1000;
/** One account from one address: a few typos, then one second doubling up to five minutes. */
export const ACCOUNT_POLICY: AttemptPolicy = { free: 5, maxLockMs: 5 * 60 * 1000, forgetAfterMs: FORGET_AFTER_MS };
/** One address over every account: room for an office behind one NAT, not for a sweep. */
export const ADDRESS_POLICY: AttemptPolicy = { free: 20, maxLockMs: 15 * 60 * 1000, forgetAfterMs: FORGET_AFTER_MS };

interface Lock {
  scope: "address" | "account";
  key: string;
  failures: number;
  waitMs: number;
}

export interface SignInAttempt {
  /** Records the failure: audits every lock this attempt started. */
  failed(): Promise<void>;
  /** Forgets the account's failures and gives the address its attempt back. */
  succeeded(): Promise<void>;
}

function tooMany(waitMs: number): AppError {
  return new AppError("too_many_attempts", `Too many failed sign-ins; try again in ${Math.max(1, Math.ceil(waitMs / 1000))} s`);
}

/**
 * Counts an attempt before the password is checked, so parallel attempts cannot all pass a lock
 * that none of them has started yet; throws 429 while either key is locked.
 */
export async function beginSignInAttempt(db: Db, params: { email: string; address: string }): Promise<SignInAttempt> {
  const addressKey = `address:${params.address}`;
  const accountKey = `account:${JSON.stringify([params.email, params.address])}`;
  const byAddress = await countSignInAttempt(db, { key: addressKey, policy: ADDRESS_POLICY });
  if (!byAddress.counted) throw tooMany(byAddress.waitMs);
  const byAccount = await countSignInAttempt(db, { key: accountKey, policy: ACCOUNT_POLICY });
  if (!byAccount.counted) {
    await uncountSignInAttempt(db, { key: addressKey, policy: ADDRESS_POLICY });
    throw tooMany(byAccount.waitMs);
  }
  const started: Lock[] = [];
  if (byAddress.waitMs > 0) started.push({ scope: "address", key: addressKey, ...byAddress });
  if (byAccount.waitMs > 0) started.push({ scope: "account", key: accountKey, ...byAccount });
  return {
    async failed() {
      for (const lock of started) {
        await logAudit(db, {
          projectId: null,
          actor: `sign-in from ${params.address}`,
          action: "sign_in.lockout",
          entityType: "sign_in",
          entityId: lock.scope === "account" ? params.email : params.address,
          after: { scope: lock.scope, email: lock.scope === "account" ? params.email : undefined, address: params.address, failures: lock.failures, lockedForMs: lock.waitMs },
        });
      }
    },
    async succeeded() {
      await clearSignInFailures(db, { key: accountKey });
      await uncountSignInAttempt(db, { key: addressKey, policy: ADDRESS_POLICY });
    },
  };
}
