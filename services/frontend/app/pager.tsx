// Previous/next over an API's offset pages: the list is never loaded whole.
export function Pager({
  offset,
  limit,
  total,
  onOffset,
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  const last = Math.max(0, total - 1);
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset <= 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>{total === 0 ? "No rows" : `${offset + 1}–${Math.min(offset + limit, total)} of ${total}`}</span>
      <button type="button" disabled={offset + limit > last} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
