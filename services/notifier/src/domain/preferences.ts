// A person's notification preferences: per tunable kind, per channel, their choice else the kind's default.
import { CHANNELS, kindSpec, TUNABLE_KINDS, type Channel } from "./kinds.ts";

/** One stored choice. */
export interface PreferenceChoice {
  kind: string;
  channel: Channel;
  enabled: boolean;
}

export interface KindChannels {
  kind: string;
  in_app: boolean;
  email: boolean;
}

export interface KindChange {
  kind: string;
  in_app?: boolean;
  email?: boolean;
}

/** Every tunable kind with the value in force. */
export function effectivePreferences(choices: readonly PreferenceChoice[]): KindChannels[] {
  const chosen = new Map(choices.map((c) => [`${c.kind}/${c.channel}`, c.enabled]));
  return TUNABLE_KINDS.map((k) => ({
    kind: k.kind,
    in_app: chosen.get(`${k.kind}/in_app`) ?? k.defaults.in_app,
    email: chosen.get(`${k.kind}/email`) ?? k.defaults.email,
  }));
}

/**
 * Whether a person gets `kind` on `channel`; kinds nobody may tune follow their defaults. `addedByRule`: a routing
 * rule adds the channel, which then counts as on unless the person turned it off themselves.
 */
export function wants(
  choices: readonly PreferenceChoice[],
  kind: string,
  channel: Channel,
  addedByRule = false,
): boolean {
  const spec = kindSpec(kind);
  if (!spec) return false;
  if (!spec.tunable) return spec.defaults[channel];
  return (
    choices.find((c) => c.kind === kind && c.channel === channel)?.enabled ?? (spec.defaults[channel] || addedByRule)
  );
}

/** Problems of a change, as field paths and messages (empty: valid). */
export function changeProblems(changes: readonly KindChange[]): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  changes.forEach((c, i) => {
    const spec = kindSpec(c.kind);
    if (!spec || !spec.tunable)
      problems.push({ path: `kinds.${i}.kind`, message: `not a kind one may tune: ${c.kind}` });
    else if (seen.has(c.kind)) problems.push({ path: `kinds.${i}.kind`, message: `${c.kind} is given twice` });
    seen.add(c.kind);
  });
  return problems;
}

/** The stored choices after a change: `replace` drops every choice of a kind not given. */
export function applyChanges(
  current: readonly PreferenceChoice[],
  changes: readonly KindChange[],
  replace: boolean,
): PreferenceChoice[] {
  const next = new Map<string, PreferenceChoice>();
  if (!replace) for (const c of current) next.set(`${c.kind}/${c.channel}`, c);
  for (const change of changes)
    for (const channel of CHANNELS) {
      const enabled = change[channel];
      if (enabled !== undefined) next.set(`${change.kind}/${channel}`, { kind: change.kind, channel, enabled });
    }
  return [...next.values()];
}
