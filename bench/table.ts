// Prints a benchmark's results as a table with the machine noted, so figures are never read without context.
import os from "node:os";

export function machine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown cpu";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  const cols = Object.keys(rows[0] ?? {});
  const cell = (v: string | number) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c] ?? "").length)));
  const line = (vals: string[]) => `| ${vals.map((v, i) => v.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\n${title}\nmachine: ${machine()}\n`);
  console.log(line(cols));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c] ?? ""))));
}

/** p-th percentile (0..100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
