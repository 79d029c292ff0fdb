import { buttonClass } from "@/components/ui/button";

/**
 * "Sign in with <provider>" links (GET /auth/oidc/start): plain links, not forms, since a form
 * posting to a redirect that leaves the site would break the CSP's form-action 'self'.
 */
export function SsoButtons({ providers, next }: { providers: { id: string; name: string }[]; next?: string }) {
  if (providers.length === 0) return null;
  return (
    <div className="space-y-2" data-testid="sso-buttons">
      {providers.map((p) => {
        const query = new URLSearchParams({ provider: p.id, ...(next && { next }) });
        return (
          <a key={p.id} href={`/auth/oidc/start?${query}`} className={buttonClass("secondary", "w-full")} data-testid="sso-button">
            Sign in with {p.name}
          </a>
        );
      })}
    </div>
  );
}
