// CSV as RFC 4180 writes it (comma, CRLF, fields quoted when they hold a comma, quote or line break). A cell that a
// spreadsheet would run as a formula (leading =, +, -, @, tab or carriage return) is prefixed with a single quote.
// Lists are joined with " / ", objects written as JSON, null as an empty cell.

const FORMULA = /^[=+\-@\t\r]/;

function csvText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "";
}

export function csvCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (Array.isArray(value)) text = value.map((v) => csvText(v)).join(" / ");
  else text = csvText(value);
  if (typeof value === "string" && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
