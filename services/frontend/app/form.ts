// A form field's text: FormData.get answers a File for file inputs and null for a missing field.
export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}
