"use client";

import { useMutation } from "@tanstack/react-query";
import { clsx } from "clsx";
import { ShieldX, ShieldCheck } from "lucide-react";
import { Button } from "@/components/ui/button";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import type { IntegrityReportResponse } from "../schema";

function Hash({ value }: { value: string }) {
  return <code className="break-all font-mono text-xs">{value}</code>;
}

function ChainResult({ title, report, testId }: { title: string; report: IntegrityReportResponse["audit"]; testId: string }) {
  const broken = report.firstBroken;
  const Icon = broken ? ShieldX : ShieldCheck;
  return (
    <section
      className={clsx(
        "rounded-lg border p-4 text-sm",
        broken ? "border-red-300 bg-red-50 dark:border-red-900 dark:bg-red-950" : "border-emerald-300 bg-emerald-50 dark:border-emerald-900 dark:bg-emerald-950",
      )}
      data-testid={testId}
      data-status={broken ? "broken" : "intact"}
    >
      <h3 className="flex items-center gap-2 font-semibold">
        <Icon className={clsx("h-4 w-4", broken ? "text-red-600" : "text-emerald-600")} aria-hidden />
        {title}: {broken ? "broken" : "intact"}
      </h3>
      <p className="mt-1 text-zinc-600 dark:text-zinc-400">
        {report.rows} rows in the chain
        {report.unsealed > 0 && `, ${report.unsealed} appended since the check began (not yet sealed)`}
        {report.anchor && `; starts after retention at position ${report.anchor.position} (days before ${report.anchor.before.slice(0, 10)})`}
      </p>
      {broken ? (
        <dl className="mt-3 grid grid-cols-[9rem_1fr] gap-x-3 gap-y-1" data-testid={`${testId}-broken`}>
          <dt className="text-zinc-500">First broken row</dt>
          <dd>
            <span className="font-mono">{broken.table}</span>
            {broken.id !== null && (
              <>
                {" "}
                id <span className="font-mono">{broken.id}</span>
              </>
            )}
            , position <span className="font-mono">{broken.position}</span>
          </dd>
          <dt className="text-zinc-500">Problem</dt>
          <dd>{broken.problem}</dd>
          <dt className="text-zinc-500">Expected hash</dt>
          <dd>{broken.expectedHash ? <Hash value={broken.expectedHash} /> : "none: the row should not be there"}</dd>
          <dt className="text-zinc-500">Stored hash</dt>
          <dd>{broken.storedHash ? <Hash value={broken.storedHash} /> : "none"}</dd>
        </dl>
      ) : (
        report.head && (
          <p className="mt-2 text-zinc-600 dark:text-zinc-400">
            Newest link: position <span className="font-mono">{report.head.position}</span>, <Hash value={report.head.hash} />. Note it
            elsewhere: a later check that finds an older head means the newest rows were removed.
          </p>
        )
      )}
      {report.signedHead && (
        <p className="mt-2 text-zinc-600 dark:text-zinc-400" data-testid={`${testId}-signed-head`} data-valid={report.signedHead.valid}>
          Newest signed head: position <span className="font-mono">{report.signedHead.position}</span>, signed{" "}
          {new Date(report.signedHead.signedAt).toLocaleString()} by key <span className="font-mono">{report.signedHead.keyId}</span>:{" "}
          {report.signedHead.valid ? "valid" : <strong className="text-red-700 dark:text-red-300">does not verify</strong>}
        </p>
      )}
    </section>
  );
}

/** Downloads of each chain's signed bundle, for `hookplane audit verify --bundle <file>` offline. */
function BundleLinks() {
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="integrity-bundles">
      Check a chain elsewhere, with no server: download its signed bundle (
      <a className="underline" href="/api/v1/audit/bundle?table=audit_log" download>
        audit log
      </a>
      ,{" "}
      <a className="underline" href="/api/v1/audit/bundle?table=hook_invocations" download>
        hook ledger
      </a>
      ) and run <code className="font-mono text-xs">hookplane audit verify --bundle &lt;file&gt; --public-key &lt;key&gt;</code> with the key
      published at{" "}
      <a className="underline" href="/.well-known/hookplane-ledger-keys">
        /.well-known/hookplane-ledger-keys
      </a>
      .
    </p>
  );
}

/**
 * The admin's "Verify integrity" button: seals what has been appended, then walks the audit log's
 * and the hook ledger's hash chains (GET /api/v1/audit/verify, the same check as
 * `hookplane audit verify`) and names the first broken row of each.
 */
export function IntegrityPanel() {
  const check = useMutation({ mutationFn: () => apiFetch<IntegrityReportResponse>("/api/v1/audit/verify") });
  return (
    <div className="space-y-4" data-testid="integrity-panel">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
          Every audit and hook ledger row carries a SHA-256 hash chained over the row before it; the database refuses changes and
          deletions except retention of whole days. Each seal signs the chain&apos;s head with this instance&apos;s key. A row changed or
          removed behind its back breaks the chain here.
        </p>
        <Button type="button" onClick={() => check.mutate()} disabled={check.isPending} data-testid="verify-integrity">
          {check.isPending ? "Verifying…" : "Verify integrity"}
        </Button>
      </div>
      {check.isError && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
          Could not check: {check.error.message}
        </div>
      )}
      {check.data && (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2" role="status" aria-live="polite">
          <ChainResult title="Audit log" report={check.data.audit} testId="integrity-audit" />
          <ChainResult title="Hook ledger" report={check.data.ledger} testId="integrity-ledger" />
        </div>
      )}
      <BundleLinks />
    </div>
  );
}
