import { describe, expect, test } from "vitest";
import { isSignInFailure, SIGN_IN_FAILURES, signInFailureMessage } from "./sign-in-messages";

describe("sign-in failure messages", () => {
  test("every reason has words, naming the provider where one is known", () => {
    for (const reason of SIGN_IN_FAILURES) expect(signInFailureMessage(reason, "Okta")).toMatch(/\.$/);
    expect(signInFailureMessage("provider_unavailable", "Okta")).toBe(
      "Okta could not be reached. Try again in a moment; if it keeps happening, an admin should check its issuer URL in Settings.",
    );
    expect(signInFailureMessage("provider_unavailable")).toMatch(/^The sign-in provider could not be reached/);
  });

  test("only known reasons are shown: anything else in the URL is ignored", () => {
    expect(isSignInFailure("denied")).toBe(true);
    expect(isSignInFailure("<script>alert(1)</script>")).toBe(false);
    expect(isSignInFailure(["denied"])).toBe(false);
    expect(isSignInFailure(undefined)).toBe(false);
  });
});
