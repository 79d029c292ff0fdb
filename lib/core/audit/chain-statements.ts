/**
 * The statements the instance signs about its chains (chain-signature.ts: a signed head, a
 * retention anchor, a deleted run's gap), built from their stored rows, and why a stored signature
 * does not hold. Pure: the database reads the rows, this says what they mean.
 */
import { verifyStatement, type ChainPublicKey, type SignedStatement } from "./chain-signature";

/** The statement a signed head (chain_seals) carries. */
export function headStatement(seal: { tableName: string; chainSeq: number; hash: string; signedAt: Date }): SignedStatement {
  return { kind: "head", table: seal.tableName, position: seal.chainSeq, hash: seal.hash, signedAt: seal.signedAt.toISOString() };
}

/** The statement a retention anchor (chain_anchors) carries. */
export function anchorStatement(anchor: { tableName: string; chainSeq: number; hash: string; before: Date }): SignedStatement {
  return { kind: "anchor", table: anchor.tableName, position: anchor.chainSeq, hash: anchor.hash, before: anchor.before.toISOString() };
}

/** The statement a deleted run's gap (chain_gaps) carries. */
export function gapStatement(gap: { tableName: string; firstSeq: number; lastSeq: number; prevHash: string | null; hash: string; runId: string }): SignedStatement {
  return {
    kind: "gap",
    table: gap.tableName,
    firstPosition: gap.firstSeq,
    lastPosition: gap.lastSeq,
    previousHash: gap.prevHash,
    hash: gap.hash,
    runId: gap.runId,
  };
}

/** Why a signed record does not hold under `key`, or undefined when it does. `what` names it in the sentence. */
export function signatureProblem(key: ChainPublicKey, what: string, statement: SignedStatement, signed: { keyId: string | null; signature: string | null }): string | undefined {
  if (signed.keyId !== key.kid) {
    return `${what} was signed with key ${signed.keyId}, not this instance's ledger key ${key.kid} (do all its processes share HOOKPLANE_SECRET_KEY?)`;
  }
  if (!verifyStatement(key, statement, signed.signature ?? "")) return `${what} does not verify: it was changed after it was signed, or signed by someone else`;
  return undefined;
}
