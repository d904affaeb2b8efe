// A backup's name says what it is and when it was taken: "auto-20261128T143000123Z" (the schedule's, protected from
// deletion) or "manual-..." (a super_admin's). The name is also its directory under BACKUP_DIR and the top folder of
// its archive, so only names of this form are ever joined to a path.
export type BackupKind = "automatic" | "manual";

const PREFIX: Record<BackupKind, string> = { automatic: "auto", manual: "manual" };
const NAME = /^(auto|manual)-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/;

export function backupName(kind: BackupKind, at: Date): string {
  const stamp = at.toISOString().replace(/[-:.]/g, "");
  return `${PREFIX[kind]}-${stamp}`;
}

/** The kind and time a name carries, or null for anything that is not a backup's name. */
export function parseBackupName(name: string): { kind: BackupKind; createdAt: Date } | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const [, prefix, y, mo, d, h, mi, s, ms] = m;
  const kind: BackupKind = prefix === "auto" ? "automatic" : "manual";
  const createdAt = new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, +ms!));
  // A time that does not exist (month 13) comes back as another name.
  if (Number.isNaN(createdAt.getTime()) || backupName(kind, createdAt) !== name) return null;
  return { kind, createdAt };
}

/** The automatic backups past the newest `keep` (names of one kind sort by time). */
export function automaticBeyond(names: readonly string[], keep: number): string[] {
  return names
    .filter((n) => parseBackupName(n)?.kind === "automatic")
    .sort()
    .reverse()
    .slice(keep);
}

/** When the newest automatic backup among `names` was taken, or undefined when there is none. */
export function newestAutomatic(names: readonly string[]): Date | undefined {
  const [newest] = automaticBeyond(names, 0);
  return newest ? parseBackupName(newest)!.createdAt : undefined;
}
