/**
 * `hookplane audit verify`: asks Hookplane to seal and check the hash chains of the audit log and
 * the hook ledger, and prints what it found; with `--bundle FILE`, checks a chain's bundle offline
 * (chain-bundle-verify.cjs), with no server.
 */
"use strict";
const { writeAndExit } = require("./direct-stdio.cjs");
const { errorMessageOf, post } = require("./http-exchange.cjs");

function describeChain(name, chain) {
  const unsealed = chain.unsealed ? ` (${chain.unsealed} appended since, not yet sealed)` : "";
  const lines = [];
  const signed = chain.signedHead;
  if (!chain.firstBroken) {
    const head = chain.head ? `, head #${chain.head.position} ${chain.head.hash}` : "";
    lines.push(`${name}: intact, ${chain.rows} rows${unsealed}${head}`);
    if (chain.anchor) lines.push(`  starts after retention at #${chain.anchor.position} (days before ${chain.anchor.before})`);
    if (chain.removed) lines.push(`  ${chain.removed.rows} rows of ${chain.removed.runs} deleted runs stepped over (chain_gaps)`);
    if (signed) {
      const heads = chain.signatures ? `${chain.signatures.heads} signed heads verified; ` : "";
      lines.push(`  ${heads}newest signed head #${signed.position}, signed at ${signed.signedAt} by key ${signed.keyId}: ${signed.valid ? "valid" : "DOES NOT VERIFY"}`);
    }
    if (chain.signatures?.unsigned) lines.push(`  ${chain.signatures.unsigned} gaps or anchors from before signing, taken on the database's word`);
    return lines;
  }
  const broken = chain.firstBroken;
  const row = broken.id === null || broken.id === undefined ? "" : ` row id ${broken.id},`;
  lines.push(`${name}: BROKEN at ${broken.table}${row} position ${broken.position}: ${broken.problem}`);
  lines.push(`  expected hash ${broken.expectedHash || "(none: the row should not be there)"}`);
  lines.push(`  stored hash   ${broken.storedHash || "(none)"}`);
  lines.push(`  ${chain.rows} rows in the chain${unsealed}`);
  return lines;
}

/**
 * `hookplane audit verify --bundle FILE`: offline, nothing but node and the file (and the key).
 * Exit 0 when the bundle verifies, 1 when something in it does not, 2 when it could not check.
 */
async function auditVerifyBundle(flags) {
  const { CannotCheck, describeBundle, verifyBundleFile } = require("./chain-bundle-verify.cjs");
  let report;
  try {
    report = await verifyBundleFile(flags.bundle, { publicKey: flags["public-key"], trustUnsigned: Boolean(flags.trustUnsigned) });
  } catch (error) {
    if (error instanceof CannotCheck) return writeAndExit(2, `hookplane: could not check ${flags.bundle}: ${error.message}\n`, 2);
    throw error;
  }
  const text = flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${describeBundle(report, flags.bundle)}\n`;
  writeAndExit(1, text, report.ok ? 0 : 1);
}

/** `hookplane audit verify`: exit 0 when both chains hold, 1 when one is broken, 2 when it could not check. */
async function auditVerify(flags) {
  if (flags.bundle !== undefined) return auditVerifyBundle(flags);
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const token = process.env.HOOKPLANE_TOKEN;
  const fail = (message) => writeAndExit(2, `hookplane: ${message}\n`, 2);
  if (!token) return fail("HOOKPLANE_TOKEN is not set (an admin token: Settings, API tokens)");
  let response;
  try {
    response = await post(`${base}/api/v1/audit/verify`, { authorization: `Bearer ${token}` }, undefined, 10 * 60_000);
  } catch (error) {
    return fail(`Hookplane unreachable at ${base}: ${error.code ?? error.message ?? error}`);
  }
  if (response.status !== 200) return fail(`Hookplane at ${base} answered ${response.status}: ${errorMessageOf(response.text)}`);
  let report;
  try {
    report = JSON.parse(response.text);
  } catch {
    return fail(`Hookplane at ${base} answered something that is not JSON`);
  }
  const text = flags.json
    ? `${JSON.stringify(report, null, 2)}\n`
    : `${[...describeChain("audit log", report.audit), ...describeChain("hook ledger", report.ledger)].join("\n")}\n`;
  writeAndExit(1, text, report.ok ? 0 : 1);
}

module.exports = { auditVerify };
