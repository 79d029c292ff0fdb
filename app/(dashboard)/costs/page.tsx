import { Suspense } from "react";
import { CostDashboard } from "@/lib/features/costs/components/cost-dashboard";
import { PriceTableEditor } from "@/lib/features/costs/components/price-table-editor";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

export const metadata = { title: "Costs" };

export default async function CostsPage() {
  const principal = await requirePagePrincipal();
  return (
    <>
      <PageHeader title="Costs" description="What agents spend, by agent, model and day; budgets; and the price table every model call is priced with." />
      <div className="max-w-6xl space-y-8">
        <Suspense>
          <CostDashboard />
        </Suspense>
        <section aria-labelledby="prices-title" id="prices">
          <h2 id="prices-title" className="mb-1 text-base font-semibold">
            Price table
          </h2>
          <p className="mb-4 text-sm text-zinc-500">
            USD per million tokens. A model gets the newest row (not after the call) whose pattern matches it; among rows of one date the longest pattern wins.
            Changes price new calls only.
          </p>
          <PriceTableEditor canEdit={principal.role === "admin"} />
        </section>
      </div>
    </>
  );
}
