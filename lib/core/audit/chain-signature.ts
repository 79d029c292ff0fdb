/**
 * What the instance signs about its hash chains, and how anyone checks it (docs/security.md, "The
 * signed record"). Three statements:
 *
 * - a head: the chain of `table` had reached `position`, whose hash is `hash`, at `signedAt`
 *   (written at every seal, chain_seals);
 * - an anchor: retention deleted the rows up to `position`; the oldest remaining row links to
 *   `hash` (chain_anchors);
 * - a gap: a deleted run's rows held `firstPosition`–`lastPosition`, the first of them linked to
 *   `previousHash` and the next row links to `hash` (chain_gaps). `previousHash` binds the rows
 *   before the gap: without it, nothing would vouch for those after the last head before the gap.
 *
 * Why anchors and gaps too: a bundle (lib/features/audit/chain-bundle.ts) is a file anyone can edit,
 * and an anchor or a gap is where the verifier takes a hash on trust. Unsigned, a forger could
 * replace any rows by an invented gap, or cut the oldest ones off with an invented anchor, and the
 * rest would still verify. Signed, only the ones this instance wrote pass.
 *
 * The message is RFC 8785 canonical JSON of the statement with a `kind` naming it and its version,
 * so a signature over one statement can never be read as another, e.g.
 *   {"hash":"9f…","kind":"hookplane.chain-head/1","position":42,"signedAt":"2025-01-31T12:00:00.000Z","table":"hook_invocations"}
 * signed with Ed25519 (RFC 8032) over its UTF-8 bytes; the signature is base64. bin/lib/chain-bundle-verify.cjs
 * builds the same messages without this code: change both or neither (offline-verifier-parity.test.ts compares them).
 * Pure: node:crypto only.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { canonicalJson } from "./chain-hash";

export type SignedStatement =
  | { kind: "head"; table: string; position: number; hash: string; signedAt: string }
  | { kind: "anchor"; table: string; position: number; hash: string; before: string }
  | { kind: "gap"; table: string; firstPosition: number; lastPosition: number; previousHash: string | null; hash: string; runId: string };

export function signedMessage(statement: SignedStatement): string {
  return canonicalJson({ ...statement, kind: `hookplane.chain-${statement.kind}/1` });
}

/** A public key as a JSON Web Key (RFC 8037), as published at /.well-known/hookplane-ledger-keys. */
export interface ChainPublicKey {
  kty: "OKP";
  crv: "Ed25519";
  /** The raw 32-byte public key, base64url. */
  x: string;
  kid: string;
  use: "sig";
  alg: "EdDSA";
}

export interface ChainSigningKey {
  keyId: string;
  publicKey: ChainPublicKey;
  /** The base64 Ed25519 signature of `signedMessage(statement)`. */
  sign(statement: SignedStatement): string;
}

/** A signature and the key that made it, as stored beside what it signs. */
export interface StatementSignature {
  keyId: string;
  signature: string;
}

/** The PKCS #8 DER prefix of an Ed25519 private key (RFC 8410): node:crypto takes a raw seed only this way. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * The key id: the first 16 hex digits of SHA-256 over the raw public key. Derived from the key
 * itself, so a verifier can compute it from the key it was handed and no registry is needed.
 */
export function chainKeyId(rawPublicKey: Buffer): string {
  return createHash("sha256").update(rawPublicKey).digest("hex").slice(0, 16);
}

function publicJwk(key: KeyObject): ChainPublicKey {
  const { x } = key.export({ format: "jwk" }) as { x: string };
  return { kty: "OKP", crv: "Ed25519", x, kid: chainKeyId(Buffer.from(x, "base64url")), use: "sig", alg: "EdDSA" };
}

/** An Ed25519 key from its 32-byte seed (RFC 8032's private key). */
export function chainSigningKeyFromSeed(seed: Buffer): ChainSigningKey {
  if (seed.length !== 32) throw new Error(`an Ed25519 seed is 32 bytes; got ${seed.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  const publicKey = publicJwk(createPublicKey(privateKey));
  return {
    keyId: publicKey.kid,
    publicKey,
    sign: (statement) => sign(null, Buffer.from(signedMessage(statement), "utf8"), privateKey).toString("base64"),
  };
}

const publicKeys = new Map<string, KeyObject>();

/** Whether `signature` is `key`'s over the statement; false for anything malformed rather than a throw. */
export function verifyStatement(key: ChainPublicKey, statement: SignedStatement, signature: string): boolean {
  try {
    let keyObject = publicKeys.get(key.x);
    if (!keyObject) {
      keyObject = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.x }, format: "jwk" });
      publicKeys.set(key.x, keyObject);
    }
    return verify(null, Buffer.from(signedMessage(statement), "utf8"), keyObject, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}
