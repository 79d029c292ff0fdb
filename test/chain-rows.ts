/**
 * A chained table's rows with their position and hash in the chain (chain_links), as one relation
 * that reads like the table did when rows carried them: for tests that look at a chain in SQL,
 * `select chain_seq, hash from ${linkedRows("hook_invocations")} where reason = 'x'`. A row not
 * sealed yet has both NULL.
 */
import { hashedColumnNames, UNHASHED_COLUMNS, type ChainedTable } from "@/db/queries/hash-chain";

export function linkedRows(table: ChainedTable, alias: string = table): string {
  const columns = [...hashedColumnNames(table), ...UNHASHED_COLUMNS[table]].map((c) => `r."${c}"`).join(", ");
  return `(select ${columns}, l.chain_seq, l.hash from ${table} r left join chain_links l on l.table_name = '${table}' and l.row_id = r.id and l.row_created_at = r.created_at) ${alias}`;
}
