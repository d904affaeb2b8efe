// A form field's text: FormData.get answers a File for file inputs and null for a missing field.
export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

/** A filter form's fields by name, an empty one as undefined so the filter it held is dropped. */
export function filters<K extends string>(form: FormData, names: readonly K[]): Record<K, string | undefined> {
  return Object.fromEntries(names.map((name) => [name, field(form, name) || undefined])) as Record<
    K,
    string | undefined
  >;
}
