import type { ConfigRow } from "@/lib/platform/config/config";
import { DataTable } from "@/components/ui/data-table";

/** Settings' list of the operator's configuration: the values the runtime uses, from the same parse (configRows). */
export function OperatorConfigTable({ rows }: { rows: ConfigRow[] }) {
  return (
    <DataTable variant="plain" testId="operator-config" columns={[{ label: "Variable" }, { label: "Value" }, { label: "Source" }]}>
      {rows.map((row) => (
        <tr key={row.name} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-testid="config-row" data-name={row.name}>
          <td className="py-1.5 pr-3 font-mono text-xs" title={row.description}>
            {row.name}
          </td>
          <td className="py-1.5 pr-3 font-mono text-xs break-all" data-testid="config-value">
            {row.value}
          </td>
          <td className="py-1.5 text-xs text-zinc-500" data-testid="config-source">
            {row.source === "environment" ? `set by ${row.name}` : "default"}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
