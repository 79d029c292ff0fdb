/**
 * `hookplane spool flush`: sends Hookplane the decisions `hook` took alone while it was unreachable
 * (offline-spool.cjs keeps them). A hook call that reaches Hookplane again starts it in the
 * background by itself.
 */
"use strict";
const { writeAndExit } = require("./direct-stdio.cjs");
const { exchange, machineHeaders } = require("./http-exchange.cjs");

/** `hookplane spool flush`: sends the offline spool (exit 0 when all went, 1 when some wait still). */
async function spoolFlush(flags) {
  const stored = process.env.HOOKPLANE_TOKEN ? undefined : require("./stored-credential.cjs").readStoredCredential();
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? stored?.url ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const token = process.env.HOOKPLANE_TOKEN ?? stored?.token;
  if (!token) return writeAndExit(2, "hookplane: not signed in (hookplane login, or HOOKPLANE_TOKEN)\n", 2);
  const { flushSpool } = require("./offline-spool.cjs");
  const { sent, failed } = await flushSpool({ base, headers: { authorization: `Bearer ${token}`, ...machineHeaders() }, exchange });
  writeAndExit(1, `hookplane: sent ${sent} decisions taken offline${failed ? "; the rest wait" : ""}\n`, failed ? 1 : 0);
}

module.exports = { spoolFlush };
