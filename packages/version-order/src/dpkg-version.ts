// dpkg's version ordering (lib/dpkg/version.c: epoch, then verrevcmp over upstream version and Debian revision),
// for the Debian and Ubuntu OSV ecosystems. The npm candidates read epochs and missing revisions wrongly
// (1.0 = 1.0-1), so it is written here after dpkg's C source and tested against `dpkg --compare-versions` itself.

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** dpkg's order(): digits and the end 0, letters their code, ~ before everything, other characters after letters. */
function order(c: string | undefined): number {
  if (c === undefined || isDigit(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  if (c === "~") return -1;
  return c.charCodeAt(0) + 256;
}

export function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac < bc ? -1 : 1;
      i++;
      j++;
    }
    while (a[i] === "0") i++;
    while (b[j] === "0") j++;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff) return firstDiff < 0 ? -1 : 1;
  }
  return 0;
}

const DPKG_VERSION = /^(?:(\d+):)?([0-9][A-Za-z0-9.+~:-]*?)(?:-([A-Za-z0-9.+~]+))?$/;

export const isDpkgVersion = (text: string): boolean => DPKG_VERSION.test(text);

function partsOf(text: string): { epoch: number; upstream: string; revision: string } {
  const colon = text.indexOf(":");
  const epoch = colon > 0 ? Number(text.slice(0, colon)) : 0;
  const rest = colon > 0 ? text.slice(colon + 1) : text;
  const dash = rest.lastIndexOf("-");
  return dash > 0
    ? { epoch, upstream: rest.slice(0, dash), revision: rest.slice(dash + 1) }
    : { epoch, upstream: rest, revision: "" };
}

export function compareDpkgVersions(a: string, b: string): number {
  const x = partsOf(a);
  const y = partsOf(b);
  if (x.epoch !== y.epoch) return x.epoch < y.epoch ? -1 : 1;
  return verrevcmp(x.upstream, y.upstream) || verrevcmp(x.revision, y.revision);
}
