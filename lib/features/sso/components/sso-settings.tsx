import type { Db } from "@/db/client";
import { DataTable } from "@/components/ui/data-table";
import { listProviders, getAuthSettings } from "@/lib/features/sso/provider-service";
import { DeleteProviderButton } from "./delete-provider-button";
import { PasswordSignInSwitch } from "./password-sign-in-switch";
import { ProviderForm } from "./provider-form";

/** Settings → Single sign-on (admins): the callback URL to register, the providers, the password switch. */
export async function SsoSettings({ db }: { db: Db }) {
  const [{ items: providers, callbackUrl }, auth] = await Promise.all([listProviders(db), getAuthSettings(db)]);
  return (
    <div className="space-y-4">
      <p className="text-sm">
        Register this redirect (callback) URL with the identity provider:{" "}
        <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs dark:bg-zinc-800" data-testid="sso-callback-url">
          {callbackUrl}
        </code>
      </p>
      {providers.length > 0 && (
        <DataTable
          variant="plain"
          testId="providers-table"
          columns={[{ label: "Name" }, { label: "Issuer" }, { label: "Groups → project:role" }, { label: "Everyone else (default project)" }, { label: "Actions", hidden: true }]}
        >
          {providers.map((p) => (
            <tr key={p.id} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-testid="provider-row">
              <td className="py-1.5">{p.name}</td>
              <td className="py-1.5 font-mono text-xs">{p.issuer}</td>
              <td className="py-1.5 font-mono text-xs">
                {p.roleMappings.length > 0 ? p.roleMappings.map((m) => `${m.group} → ${m.project ? `${m.project}:` : ""}${m.role}`).join(", ") : <span className="font-sans text-zinc-500">none: admins set roles</span>}
              </td>
              <td className="py-1.5">{p.defaultRole ?? "no access"}</td>
              <td className="py-1.5 text-right">
                <details className="inline-block text-left">
                  <summary className="cursor-pointer text-xs text-indigo-600 hover:underline" data-testid="edit-provider">
                    Edit
                  </summary>
                  <div className="mt-2 w-[40rem] max-w-[80vw] rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
                    <ProviderForm provider={p} />
                  </div>
                </details>
                <div className="mt-1">
                  <DeleteProviderButton id={p.id} name={p.name} />
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <details open={providers.length === 0} className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
        <summary className="cursor-pointer text-sm font-medium" data-testid="add-provider">
          Add a provider
        </summary>
        <div className="mt-3">
          <ProviderForm />
        </div>
      </details>
      <PasswordSignInSwitch enabled={auth.passwordSignIn} breakGlass={auth.breakGlass} />
    </div>
  );
}
