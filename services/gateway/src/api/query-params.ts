// Query-string parameters as the list routes read them: text in, typed values out, one spelling for each shape.
import { z } from "zod";

/** A boolean parameter: only the words true and false are booleans (anything else is a 422). */
export const booleanParam = () =>
  z
    .enum(["true", "false"])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === "true"));

/** A list parameter: repeated (`severity=a&severity=b`, also spelled `severity[]=`) or comma-separated. */
export const listParam = () => z.union([z.string().max(2000), z.array(z.string().max(2000)).max(50)]).optional();

/** The values of list parameters (a name and its `[]` spelling together), split, trimmed, empty ones dropped. */
export const listValues = (...given: (string | string[] | undefined)[]): string[] =>
  given
    .flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/** Which snapshot of a project a read is about (docs/inventory.md, "Anchors"). */
export const snapshotAnchorQuery = z.object({
  scan_id: z.uuid().optional().meta({ description: "A succeeded scan of the project (else 404); wins over release" }),
  release: z.string().max(255).optional().meta({ description: "Exact release label, trimmed (unknown: 404)" }),
});
