/**
 * `hookplane login` and `hookplane logout`. Login is the OAuth 2.0 device authorization grant
 * (RFC 8628) against Hookplane: it prints a link and a code, the person approves it in the
 * browser (signed in, single sign-on included), and the bridge credential the next poll receives
 * is stored for this OS user (stored-credential.cjs). Logout revokes it on the server, then forgets it.
 */
"use strict";
const { exchange } = require("./http-exchange.cjs");
const { credentialsFile, readStoredCredential, removeStoredCredential, writeStoredCredential } = require("./stored-credential.cjs");

function postJson(url, body, timeoutMs = 15_000) {
  return exchange(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), timeoutMs });
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves the exit code. */
async function login({ url, name, out }) {
  const base = url.replace(/\/+$/, "");
  let started;
  try {
    started = await postJson(`${base}/api/v1/device/code`, { name: name ?? require("node:os").hostname() });
  } catch (error) {
    out.error(`hookplane: Hookplane unreachable at ${base}: ${error.code ?? error.message}`);
    return 2;
  }
  const code = parse(started.text);
  if (started.status !== 201 || !code?.deviceCode) {
    out.error(`hookplane: Hookplane at ${base} answered ${started.status}: ${code?.error?.message ?? started.text.slice(0, 200)}`);
    return 2;
  }
  out.log(`Open ${code.verificationUriComplete}`);
  out.log(`and check that it shows the code ${code.userCode} (it expires in ${Math.round(code.expiresIn / 60)} minutes).`);
  let interval = code.interval * 1000;
  const deadline = Date.now() + code.expiresIn * 1000;
  while (Date.now() < deadline) {
    await sleep(interval);
    let polled;
    try {
      polled = await postJson(`${base}/api/v1/device/token`, { deviceCode: code.deviceCode });
    } catch {
      continue; // the server went away for a moment: the code is still good
    }
    const answer = parse(polled.text);
    if (polled.status === 200 && answer?.token) {
      const file = writeStoredCredential({ url: base, token: answer.token, email: answer.email, project: answer.project, createdAt: new Date().toISOString() });
      out.log(`Signed in as ${answer.email} in project ${answer.project}. Stored in ${file} (readable by you only).`);
      return 0;
    }
    const reason = answer?.error?.code;
    if (reason === "authorization_pending") continue;
    if (reason === "slow_down") {
      interval += 5_000;
      continue;
    }
    out.error(`hookplane: ${answer?.error?.message ?? `Hookplane answered ${polled.status}`}`);
    return 1;
  }
  out.error("hookplane: the code expired before it was approved: run hookplane login again");
  return 1;
}

/**
 * `hookplane login --with-token`: stores a bridge credential a person already has (a CI secret)
 * as login stores the one the browser approves, once Hookplane accepts it: an empty event posted to
 * the generic ingest route is refused as invalid (422) only after the credential and its role
 * passed (401, 403 otherwise). Resolves the exit code: 0 stored, 1 refused (nothing stored), 2
 * could not check.
 */
async function loginWithToken({ url, token, out, headers = {} }) {
  const base = url.replace(/\/+$/, "");
  if (!token) {
    out.error("hookplane: no credential on stdin (echo \"$TOKEN\" | hookplane login --with-token)");
    return 2;
  }
  let answer;
  try {
    answer = await exchange(`${base}/api/v1/ingest/events`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }, body: "{}", timeoutMs: 15_000 });
  } catch (error) {
    out.error(`hookplane: Hookplane unreachable at ${base}: ${error.code ?? error.message}; nothing stored`);
    return 2;
  }
  if (answer.status !== 400 && answer.status !== 422) {
    out.error(`hookplane: Hookplane at ${base} answered ${answer.status}: ${parse(answer.text)?.error?.message ?? answer.text.slice(0, 200)}; nothing stored`);
    return 1;
  }
  const file = writeStoredCredential({ url: base, token, createdAt: new Date().toISOString(), via: "with-token" });
  out.log(`Stored the credential for ${base} in ${file} (readable by you only).`);
  return 0;
}

async function logout({ out }) {
  const stored = readStoredCredential();
  if (!stored) {
    out.log(`Not signed in (no ${credentialsFile()}).`);
    return 0;
  }
  let revoked;
  try {
    revoked = await postJson(`${stored.url}/api/v1/credentials/revoke`, { token: stored.token });
  } catch (error) {
    // Forgetting it here would leave it working there: kept until the server can revoke it.
    out.error(`hookplane: Hookplane unreachable at ${stored.url}: ${error.code ?? error.message}; the credential is kept until it can be revoked`);
    return 2;
  }
  if (revoked.status !== 200) {
    out.error(`hookplane: Hookplane at ${stored.url} answered ${revoked.status}; the credential is kept`);
    return 2;
  }
  removeStoredCredential();
  out.log(parse(revoked.text)?.revoked ? `Signed out: the credential of ${stored.email ?? stored.url} is revoked.` : "Signed out (the credential was revoked already).");
  return 0;
}

module.exports = { login, loginWithToken, logout };
