// Raw SQL parameters expand JS arrays into lists, so an id set travels as one Postgres array literal
// (`= any(?::uuid[])`). Ids are validated UUIDs, which never need quoting inside the literal.
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(",")}}`;
}
