// A filter's choice among closed words, "any" (the filter left out) first.
export function AnyOf(props: { label: string; name: string; words: readonly string[]; value: string | undefined }) {
  return (
    <label>
      {props.label}
      <select name={props.name} defaultValue={props.value ?? ""}>
        <option value="">any</option>
        {props.words.map((word) => (
          <option key={word}>{word}</option>
        ))}
      </select>
    </label>
  );
}
