/**
 * What a chain check says (db/queries/chain-verification.ts writes it; the integrity panel, the
 * API and the bundle read it), and which tables are chained. Plain data: no database needed.
 */

export const CHAINED_TABLES = ["audit_log", "hook_invocations"] as const;
export type ChainedTable = (typeof CHAINED_TABLES)[number];

export interface BrokenLink {
  table: ChainedTable;
  /** The row's id; null when no row is there to name (a signed head past the chain's last row). */
  id: number | null;
  /** The row's chain_seq (or the signed head's, the gap's first, the anchor's position). */
  position: number;
  /** What the hash should be given its predecessor's stored hash and its own content (or what a signed head says it was). */
  expectedHash: string;
  storedHash: string;
  problem: string;
}

/** The newest signed head of a chain and whether it holds: its signature by this instance's key, its hash the chain's. */
export interface SignedHeadReport {
  position: number;
  hash: string;
  signedAt: string;
  keyId: string;
  valid: boolean;
}

export interface ChainReport {
  /** Sealed rows (the chain). */
  rows: number;
  /** Rows appended since the last seal, not covered by this check. */
  unsealed: number;
  /** The newest link: note it elsewhere to detect a later removal of the newest rows. */
  head?: { position: number; hash: string };
  /** Where the chain starts after retention. */
  anchor?: { position: number; hash: string; before: string };
  /** Positions whose rows went with a deleted run (chain_gaps), walked over by their recorded hash. */
  removed?: { rows: number; runs: number };
  /** The newest signed head (chain_seals). */
  signedHead?: SignedHeadReport;
  /**
   * Signatures checked on the way: signed heads, and the anchor and gaps; `unsigned`: an anchor or
   * gaps written before signing existed, taken on the database's word as before.
   */
  signatures?: { heads: number; unsigned: number };
  firstBroken?: BrokenLink;
}
