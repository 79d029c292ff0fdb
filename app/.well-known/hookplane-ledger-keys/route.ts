import { apiRoute } from "@/lib/platform/api/route";
import { ledgerKeySet } from "@/lib/platform/security/ledger-signing-key";

/**
 * The public key the instance signs its ledger's heads, anchors and gaps with (a JWK set, RFC
 * 7517/8037), for anyone checking a bundle (`hookplane audit verify --bundle <file> --public-key
 * <this document>`). No sign-in: a public key is public, and an auditor outside the instance must
 * be able to fetch it. Cacheable for a while: it changes only with HOOKPLANE_SECRET_KEY.
 */
export const GET = apiRoute({ role: null }, async () =>
  Response.json(ledgerKeySet(), { headers: { "cache-control": "public, max-age=300" } }),
);
