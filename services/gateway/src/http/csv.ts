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

/**
 * A CSV download streamed from a server-streaming RPC's chunks: the header line (also when no row follows), then a
 * line per item, one write per chunk so memory stays flat however many rows. The call starts when the body is first
 * read, so a failure before any row still becomes the route's problem answer.
 */
export function csvDownload<T>(
  filename: string,
  columns: readonly string[],
  chunks: () => AsyncIterable<{ items: T[] }>,
  jsonOf: (item: T) => Record<string, unknown>,
) {
  async function* lines() {
    let header = true;
    for await (const chunk of chunks()) {
      const rows = chunk.items.map((item) => {
        const json = jsonOf(item);
        return csvLine(columns.map((c) => json[c]));
      });
      yield (header ? csvLine(columns) : "") + rows.join("");
      header = false;
    }
    if (header) yield csvLine(columns);
  }
  return {
    status: 200 as const,
    stream: lines(),
    headers: { "Content-Disposition": `attachment; filename="${filename}"` },
  };
}
