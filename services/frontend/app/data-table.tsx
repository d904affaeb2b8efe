// A table of one page of an API's rows, drawn by TanStack Table (headless): the API sorts, filters and pages
// (manualSorting, manualPagination), so the table only renders the rows it is given and turns a header click into
// the API's `sort` value (`name`, a second click `-name`).
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState } from "@tanstack/react-table";

export type Columns<Row> = ColumnDef<Row, unknown>[];

function sortingOf(sort: string | undefined): SortingState {
  if (!sort) return [];
  return sort.startsWith("-") ? [{ id: sort.slice(1), desc: true }] : [{ id: sort, desc: false }];
}

export function DataTable<Row>({
  label,
  columns,
  rows,
  rowId,
  sort,
  onSort,
}: {
  label: string;
  columns: Columns<Row>;
  rows: Row[] | undefined;
  rowId: (row: Row) => string;
  /** The API's sort value of the page shown; columns with `enableSorting` become buttons. */
  sort?: string;
  onSort?: (sort: string) => void;
}) {
  const table = useReactTable({
    data: rows ?? [],
    columns,
    getRowId: rowId,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    manualFiltering: true,
    defaultColumn: { enableSorting: false },
    state: { sorting: sortingOf(sort) },
  });
  return (
    <table aria-label={label}>
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => {
              const title = flexRender(header.column.columnDef.header, header.getContext());
              const sorted = header.column.getIsSorted();
              return (
                <th
                  key={header.id}
                  scope="col"
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                >
                  {header.column.getCanSort() && onSort ? (
                    <button
                      type="button"
                      className="link"
                      onClick={() => onSort(sorted === "asc" ? `-${header.column.id}` : header.column.id)}
                    >
                      {title}
                      {sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : ""}
                    </button>
                  ) : (
                    title
                  )}
                </th>
              );
            })}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((row) => (
          <tr key={row.id}>
            {row.getVisibleCells().map((cell) => (
              <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
