/**
 * The instance's ledger signing key: Ed25519, its 32-byte seed derived with HKDF-SHA256 from the
 * instance secret key (HOOKPLANE_SECRET_KEY, or secret.key in the data folder) with the purpose
 * "ledger-signing/v1" (info `hookplane:ledger-signing/v1`, lib/platform/security/secret-box.ts).
 *
 * Why derived rather than generated and stored: every process of the instance (web and workers,
 * on any machine) signs with the same key and nothing new is kept anywhere; the private key lives
 * where the sealing key already does, never in the database, so a copy of the database (or anyone
 * able to write to it) cannot sign. HKDF's output is uniform, which is all an Ed25519 seed needs,
 * and the purpose keeps it unrelated to the other keys derived from the same secret (decision
 * links). The cost: the key changes with HOOKPLANE_SECRET_KEY, like every sealed secret does; the
 * key id stored with each signature says which key made it.
 */
import { getSecretBox } from "./instance-secret-box";
import type { SecretBox } from "./secret-box";
import { chainSigningKeyFromSeed, type ChainPublicKey, type ChainSigningKey, type SignedStatement, type StatementSignature } from "@/lib/core/audit/chain-signature";

const SIGNING_PURPOSE = "ledger-signing/v1";

/** Where the public key is published (app/.well-known/hookplane-ledger-keys/route.ts). */
export const LEDGER_KEYS_PATH = "/.well-known/hookplane-ledger-keys";

/** One key per secret box: tests that switch the secret key (forgetSecretBox) get the new key. */
const keys = new WeakMap<SecretBox, ChainSigningKey>();

export function ledgerSigningKey(): ChainSigningKey {
  const box = getSecretBox();
  let key = keys.get(box);
  if (!key) {
    key = chainSigningKeyFromSeed(box.derive(SIGNING_PURPOSE));
    keys.set(box, key);
  }
  return key;
}

/** The instance's signature over a statement, as stored beside it (chain_seals, chain_anchors, chain_gaps). */
export function signWithLedgerKey(statement: SignedStatement): StatementSignature {
  const key = ledgerSigningKey();
  return { keyId: key.keyId, signature: key.sign(statement) };
}

/** GET /.well-known/hookplane-ledger-keys: the keys a signature of this instance verifies with (a JWK set). */
export function ledgerKeySet(): { keys: ChainPublicKey[] } {
  return { keys: [ledgerSigningKey().publicKey] };
}
