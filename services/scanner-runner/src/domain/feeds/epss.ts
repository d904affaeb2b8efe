// EPSS scores as FIRST publishes them: an optional `#model_version:...,score_date:...` comment line, the header
// `cve,epss,percentile`, then one line per CVE with the probability and its percentile, both 0..1.

export interface EpssScore {
  cveId: string;
  score: number;
  percentile: number;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;

/** A data row, checked: null when the CVE id or either number is not what the format allows. */
export function epssScoreOf(row: { cve?: string; epss?: string; percentile?: string }): EpssScore | null {
  const cveId = row.cve?.trim().toUpperCase() ?? "";
  const score = Number(row.epss);
  const percentile = Number(row.percentile);
  if (!CVE.test(cveId) || row.epss === "" || row.percentile === "") return null;
  if (!(score >= 0 && score <= 1) || !(percentile >= 0 && percentile <= 1)) return null;
  return { cveId, score, percentile };
}

/** The score date of the comment line (`score_date:2025-03-14T00:00:00+0000`) as YYYY-MM-DD, or null. */
export function epssScoreDateOf(comment: string): string | null {
  const m = /score_date:(\d{4}-\d{2}-\d{2})/.exec(comment);
  return m ? m[1]! : null;
}
