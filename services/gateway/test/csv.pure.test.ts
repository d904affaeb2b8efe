import { describe, expect, it } from "@jest/globals";
import { csvCell, csvLine } from "../src/http/csv.ts";

describe("csv", () => {
  it("quotes what needs quoting, joins lists, writes objects as JSON and null as empty", () => {
    expect(csvLine(["a", 'b "q"', "c,d", "e\nf", null, 3, true, ["x", "y"], { k: 1 }])).toBe(
      'a,"b ""q""","c,d","e\nf",,3,true,x / y,"{""k"":1}"\r\n',
    );
  });

  it("keeps a spreadsheet from running a cell as a formula", () => {
    for (const formula of ["=1+1", "+1", "-1", "@SUM(A1)"]) expect(csvCell(formula)).toBe(`'${formula}`);
    expect(csvCell(-1)).toBe("-1");
  });
});
