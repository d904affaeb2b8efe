// rpm's version ordering (rpmvercmp of rpmio/rpmvercmp.c, and epoch:version-release on top), for the RPM-based OSV
// ecosystems. No maintained npm library implements it, so it is written here after rpm's C source and tested
// against the orderings rpm's own test suite states (test/version-order.pure.test.ts).

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isAlpha = (c: string | undefined): boolean =>
  c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));
const isAlnum = (c: string | undefined): boolean => isDigit(c) || isAlpha(c);

/** rpmvercmp: -1, 0 or 1 for two version (or release) strings. */
export function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !isAlnum(a[i]) && a[i] !== "~" && a[i] !== "^") i++;
    while (j < b.length && !isAlnum(b[j]) && b[j] !== "~" && b[j] !== "^") j++;
    // A tilde sorts before everything, even the end of the string (1.0~rc1 < 1.0).
    if (a[i] === "~" || b[j] === "~") {
      if (a[i] !== "~") return 1;
      if (b[j] !== "~") return -1;
      i++;
      j++;
      continue;
    }
    // A caret sorts after the end of the string but before anything else (1.0 < 1.0^git1 < 1.0.1).
    if (a[i] === "^" || b[j] === "^") {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== "^") return 1;
      if (b[j] !== "^") return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    const numeric = isDigit(a[i]);
    const within = numeric ? isDigit : isAlpha;
    const si = i;
    const sj = j;
    while (i < a.length && within(a[i])) i++;
    while (j < b.length && within(b[j])) j++;
    let x = a.slice(si, i);
    let y = b.slice(sj, j);
    // Segments of different kinds: the numeric one is newer.
    if (y.length === 0) return numeric ? 1 : -1;
    if (numeric) {
      x = x.replace(/^0+/, "");
      y = y.replace(/^0+/, "");
      if (x.length !== y.length) return x.length > y.length ? 1 : -1;
    }
    if (x !== y) return x > y ? 1 : -1;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

interface Evr {
  epoch: number;
  version: string;
  release: string | null;
}

function evrOf(text: string): Evr {
  const colon = text.indexOf(":");
  const epoch = colon > 0 && /^\d+$/.test(text.slice(0, colon)) ? Number(text.slice(0, colon)) : 0;
  const rest = colon > 0 ? text.slice(colon + 1) : text;
  const dash = rest.lastIndexOf("-");
  return dash > 0
    ? { epoch, version: rest.slice(0, dash), release: rest.slice(dash + 1) }
    : { epoch, version: rest, release: null };
}

/** epoch:version-release ordering; a missing release compares equal to any (as rpm does for a bare version). */
export function compareRpmVersions(a: string, b: string): number {
  const x = evrOf(a);
  const y = evrOf(b);
  if (x.epoch !== y.epoch) return x.epoch > y.epoch ? 1 : -1;
  const byVersion = rpmvercmp(x.version, y.version);
  if (byVersion !== 0 || x.release === null || y.release === null) return byVersion;
  return rpmvercmp(x.release, y.release);
}
