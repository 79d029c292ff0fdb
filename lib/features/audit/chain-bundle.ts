/**
 * A chain's bundle: everything needed to check one hash chain offline, with no server
 * (`hookplane audit verify --bundle <file>`, bin/lib/chain-bundle-verify.cjs), as NDJSON, one
 * object a line, in this order:
 *
 *   {"type":"bundle","format":"hookplane-chain-bundle/1","table":…,"exportedAt":…,"genesisHash":…,
 *    "hashedColumns":[…],"keys":[<JWK>…],"keysUrl"?:…}
 *   {"type":"anchor","position":…,"hash":…,"before":…,"keyId":…,"signature":…}     when retention cut the chain
 *   then by position: {"type":"row","position":…,"hash":…,"content":{<hashed columns>}}
 *                     {"type":"gap","firstPosition":…,"lastPosition":…,"previousHash":…,"hash":…,"runId":…,"keyId":…,"signature":…}
 *                     {"type":"seal","position":…,"hash":…,"signedAt":…,"keyId":…,"signature":…}
 *   {"type":"end","rows":…,"gaps":…,"seals":…,"head":{"position":…,"hash":…,"signedAt":…}|null}
 *
 * A row's hash is sha256(previous hash + RFC 8785 JSON of `content`) (chain-hash.ts); `content` is
 * exactly what was hashed (timestamps as UTC text with microseconds, jsonb as parsed). A seal is a
 * signed head and gaps and the anchor are signed too (chain-signature.ts has the messages); keys
 * are JWKs (RFC 8037) as /.well-known/hookplane-ledger-keys publishes them.
 *
 * One chain per bundle (`table`): the two chains are independent, and a bundle of one is what an
 * auditor of that record asks for. It ends at the newest signed head when the export began: the
 * export seals first (every seal signs its head), so every row in it is vouched for by a head. The chain is one for
 * the whole instance, every project's rows in it, so a bundle carries every project's rows: an
 * instance admin's download (GET /api/v1/audit/bundle).
 */
import type { Db } from "@/db/client";
import { chainBundlePages } from "@/db/queries/chain-bundle";
import { hashedColumnNames, hasUnsignedRows, latestChainAnchor, latestChainSeal, sealChain, type ChainedTable } from "@/db/queries/hash-chain";
import { GENESIS_HASH } from "@/lib/core/audit/chain-hash";
import { checkChain } from "./integrity-check";
import { ledgerKeySet } from "@/lib/platform/security/ledger-signing-key";

export const CHAIN_BUNDLE_FORMAT = "hookplane-chain-bundle/1";

/** The bundle's lines, a page at a time (exportResponse streams them as NDJSON). */
export async function* chainBundleLines(db: Db, params: { table: ChainedTable; keysUrl?: string }): AsyncGenerator<object[]> {
  const { table } = params;
  await sealChain(db, { table });
  // Rows sealed before signing existed get a head once a walk finds them intact (checkChain).
  if (await hasUnsignedRows(db, { table })) await checkChain(db, table);
  // The end first: rows sealed while the bundle is written belong to the next one.
  const head = await latestChainSeal(db, { table });
  const anchor = await latestChainAnchor(db, { table });
  const header = {
    type: "bundle",
    format: CHAIN_BUNDLE_FORMAT,
    table,
    exportedAt: new Date().toISOString(),
    genesisHash: GENESIS_HASH,
    hashedColumns: hashedColumnNames(table),
    keys: ledgerKeySet().keys,
    ...(params.keysUrl ? { keysUrl: params.keysUrl } : {}),
  };
  const start = anchor
    ? [{ type: "anchor", position: anchor.chainSeq, hash: anchor.hash, before: anchor.before.toISOString(), keyId: anchor.keyId, signature: anchor.signature }]
    : [];
  yield [header, ...start];
  const counts = { rows: 0, gaps: 0, seals: 0 };
  const from = anchor?.chainSeq ?? 0;
  if (head && head.chainSeq >= from) {
    for await (const page of chainBundlePages(db, { table, from, to: head.chainSeq })) {
      for (const entry of page) counts[`${entry.type}s`]++;
      yield page;
    }
  }
  yield [
    {
      type: "end",
      ...counts,
      head: head && head.chainSeq >= from ? { position: head.chainSeq, hash: head.hash, signedAt: head.signedAt.toISOString() } : null,
    },
  ];
}
