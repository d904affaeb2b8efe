// Where a piece of work's time goes, stage by stage, for its log line (a call's stages, a re-match batch's).

/** Milliseconds per stage of a call: lap(stage) adds the time since the last lap (or the start) to it. */
export function stageClock<S extends string>(stages: readonly S[]) {
  const stageMs = Object.fromEntries(stages.map((s) => [s, 0])) as Record<S, number>;
  let at = Date.now();
  const lap = (stage: S) => {
    const t = Date.now();
    stageMs[stage] += t - at;
    at = t;
  };
  return { stageMs, lap };
}
