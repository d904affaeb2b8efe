// Alpine's apk version ordering (apk-tools' version.c), for the Alpine OSV ecosystem. No maintained npm library
// implements it, so it is written here after apk-tools' rules: numbers dot by dot, then one letter, then suffixes
// (_alpha < _beta < _pre < _rc < none < _cvs < _svn < _git < _hg < _p, each with an optional number), then -rN.

const SUFFIX_RANK: Record<string, number> = { alpha: 0, beta: 1, pre: 2, rc: 3, cvs: 5, svn: 6, git: 7, hg: 8, p: 9 };
const NO_SUFFIX = 4;
const APK_VERSION = /^(\d+(?:\.\d+)*)([a-z]?)((?:_(?:alpha|beta|pre|rc|cvs|svn|git|hg|p)\d*)*)(?:-r(\d+))?$/;

interface ApkVersion {
  numbers: bigint[];
  letter: string;
  suffixes: { rank: number; n: bigint }[];
  revision: bigint;
}

function parseApk(text: string): ApkVersion | null {
  const m = APK_VERSION.exec(text);
  if (!m) return null;
  const suffixes = [...(m[3] ?? "").matchAll(/_([a-z]+)(\d*)/g)].map((s) => ({
    rank: SUFFIX_RANK[s[1] ?? ""] ?? NO_SUFFIX,
    n: BigInt(s[2] || "0"),
  }));
  return {
    numbers: (m[1] ?? "0").split(".").map((n) => BigInt(n)),
    letter: m[2] ?? "",
    suffixes,
    revision: BigInt(m[4] ?? "0"),
  };
}

export const isApkVersion = (text: string): boolean => APK_VERSION.test(text);

const cmp = <T>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

export function compareApkVersions(a: string, b: string): number {
  const x = parseApk(a);
  const y = parseApk(b);
  if (!x || !y) throw new Error("not an apk version");
  for (let k = 0; k < Math.max(x.numbers.length, y.numbers.length); k++) {
    const p = x.numbers[k];
    const q = y.numbers[k];
    // 1.2.1 is newer than 1.2 (more numbers, the rest equal).
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p !== q) return cmp(p, q);
  }
  if (x.letter !== y.letter) return cmp(x.letter, y.letter);
  for (let k = 0; k < Math.max(x.suffixes.length, y.suffixes.length); k++) {
    const p = x.suffixes[k] ?? { rank: NO_SUFFIX, n: 0n };
    const q = y.suffixes[k] ?? { rank: NO_SUFFIX, n: 0n };
    if (p.rank !== q.rank) return cmp(p.rank, q.rank);
    if (p.n !== q.n) return cmp(p.n, q.n);
  }
  return cmp(x.revision, y.revision);
}
