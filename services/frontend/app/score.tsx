// One number of a summary (a score, a count) with its label.
export function Score({ label, value }: { label: string; value: number }) {
  return (
    <div className="score">
      <span className="muted">{label}</span>
      <strong>{value}</strong>
    </div>
  );
}
