// A vulnerability's severity: computed from its CVSS vectors by a library (ae-cvss-calculator: CVSS 2.0, 3.0, 3.1,
// 4.0), the newest CVSS version present winning (v4, else v3.x, else v2) and the highest score within it; without
// a usable vector, the advisory's own rating (database_specific / ecosystem_specific severity); else unknown.
import cvss from "ae-cvss-calculator";

export const SEVERITIES = ["critical", "high", "medium", "low", "none", "unknown"] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface SeverityRating {
  severity: Severity;
  /** The base score of the vector the severity came from; null when it came from a rating or is unknown. */
  score: number | null;
  /** The vector the score came from, "" when none. */
  vector: string;
  /** 4, 3 or 2 for a CVSS version; 0 for an advisory's own rating or unknown. */
  cvssVersion: number;
}

export const UNKNOWN_SEVERITY: SeverityRating = { severity: "unknown", score: null, vector: "", cvssVersion: 0 };

/** FIRST's qualitative scale (v3.x, v4.0); v2 has no critical or none (NVD: low < 4, medium < 7, high). */
function ratingOfScore(score: number, version: number): Severity {
  if (version === 2) return score < 4 ? "low" : score < 7 ? "medium" : "high";
  if (score === 0) return "none";
  return score < 4 ? "low" : score < 7 ? "medium" : score < 9 ? "high" : "critical";
}

/** The base score of a CVSS vector, or null when the vector is not one the library reads. */
export function cvssScore(type: string, vector: string): { score: number; version: number } | null {
  try {
    if (type === "CVSS_V4" && vector.startsWith("CVSS:4.0/")) {
      return { score: new cvss.Cvss4P0(vector).calculateScores().base ?? NaN, version: 4 };
    }
    if (type === "CVSS_V3" && vector.startsWith("CVSS:3.1/")) {
      return { score: new cvss.Cvss3P1(vector).calculateScores().base ?? NaN, version: 3 };
    }
    if (type === "CVSS_V3" && vector.startsWith("CVSS:3.0/")) {
      return { score: new cvss.Cvss3P0(vector).calculateScores().base ?? NaN, version: 3 };
    }
    if (type === "CVSS_V2" && /^(\(?AV:)/.test(vector)) {
      return { score: new cvss.Cvss2(vector.replace(/^\(|\)$/g, "")).calculateScores().base ?? NaN, version: 2 };
    }
  } catch {
    return null;
  }
  return null;
}

const RATING_WORDS: Record<string, Severity> = {
  critical: "critical",
  important: "high",
  high: "high",
  moderate: "medium",
  medium: "medium",
  low: "low",
  negligible: "low",
  unimportant: "low",
  none: "none",
};

/** An advisory's own rating word ("HIGH", "MODERATE", "important", ...), or null. */
export function ratingOfWord(word: unknown): Severity | null {
  return typeof word === "string" ? (RATING_WORDS[word.trim().toLowerCase()] ?? null) : null;
}

export interface CvssEntry {
  type: string;
  score: string;
}

/** The best rating of the given vectors and rating words (see the file's comment for the order). */
export function rateSeverity(vectors: readonly CvssEntry[], ratingWords: readonly unknown[]): SeverityRating {
  let best: SeverityRating | null = null;
  for (const entry of vectors) {
    const computed = cvssScore(entry.type, entry.score);
    if (!computed || !Number.isFinite(computed.score)) continue;
    if (
      !best ||
      computed.version > best.cvssVersion ||
      (computed.version === best.cvssVersion && computed.score > (best.score ?? -1))
    ) {
      best = {
        severity: ratingOfScore(computed.score, computed.version),
        score: computed.score,
        vector: entry.score,
        cvssVersion: computed.version,
      };
    }
  }
  if (best) return best;
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  let rated: Severity | null = null;
  for (const word of ratingWords) {
    const r = ratingOfWord(word);
    if (r && (rated === null || rank(r) < rank(rated))) rated = r;
  }
  return rated ? { severity: rated, score: null, vector: "", cvssVersion: 0 } : UNKNOWN_SEVERITY;
}

/**
 * The best CVSS v3.x rating among the vectors, given `best`, rateSeverity's answer for them: the advisory lookup shows
 * the v3 score even where a v4 vector rates the severity. Only a v4-rated set is scored again (v3 beats v2).
 */
export function cvss3Rating(vectors: readonly CvssEntry[], best: SeverityRating): SeverityRating | null {
  if (best.cvssVersion === 3) return best;
  if (best.cvssVersion !== 4) return null;
  const v3 = rateSeverity(
    vectors.filter((v) => v.type === "CVSS_V3"),
    [],
  );
  return v3.cvssVersion === 3 ? v3 : null;
}

/** The better of two ratings (newer CVSS version, then higher score, then the rating word's rank). */
export function betterSeverity(a: SeverityRating, b: SeverityRating): SeverityRating {
  if (a.cvssVersion !== b.cvssVersion) return a.cvssVersion > b.cvssVersion ? a : b;
  if ((a.score ?? -1) !== (b.score ?? -1)) return (a.score ?? -1) > (b.score ?? -1) ? a : b;
  return SEVERITIES.indexOf(a.severity) <= SEVERITIES.indexOf(b.severity) ? a : b;
}
