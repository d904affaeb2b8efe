// The pure rules of backups: names (kind and time, nothing else joins a path), automatic retention, the manifest's
// parsing and the checks a restore makes before it touches anything.
import { describe, expect, it } from "@jest/globals";
import {
  filesMismatch,
  ManifestInvalid,
  parseManifest,
  schemasMismatch,
  type BackupManifest,
} from "../src/domain/backup-manifest.ts";
import { automaticBeyond, backupName, newestAutomatic, parseBackupName } from "../src/domain/backup-name.ts";

const at = new Date(Date.UTC(2026, 10, 28, 14, 30, 0, 123));
const sha = (c: string) => c.repeat(64);

describe("backup names", () => {
  it("say the kind and the time, and read back", () => {
    expect(backupName("manual", at)).toBe("manual-20261128T143000123Z");
    expect(backupName("automatic", at)).toBe("auto-20261128T143000123Z");
    expect(parseBackupName("auto-20261128T143000123Z")).toEqual({ kind: "automatic", createdAt: at });
  });

  it("refuse anything else, paths and impossible times included", () => {
    for (const name of ["../etc", "manual-20261128T143000123Z/..", "manual-20261328T143000123Z", "backup", ""])
      expect(parseBackupName(name)).toBeNull();
  });

  it("keep the newest automatic backups and never count manual ones", () => {
    const names = ["auto-20260101T000000000Z", "manual-20260103T000000000Z", "auto-20260102T000000000Z"];
    expect(automaticBeyond(names, 1)).toEqual(["auto-20260101T000000000Z"]);
    expect(automaticBeyond(names, 5)).toEqual([]);
    expect(newestAutomatic(names)).toEqual(new Date(Date.UTC(2026, 0, 2)));
    expect(newestAutomatic(["manual-20260103T000000000Z"])).toBeUndefined();
  });
});

const manifest: BackupManifest = {
  format: "sca-backup-v1",
  name: "manual-20261128T143000123Z",
  kind: "manual",
  created_at: at.toISOString(),
  portal: { version: "1.2.3", commit: "abc" },
  postgres: { server_version: "17.6", pg_dump_version: "pg_dump (PostgreSQL) 17.6" },
  schemas: [{ service: "projects", schema: "projects", migrations: ["M1", "M2"] }],
  files: [
    { path: "database.dump", size_bytes: 10, sha256: sha("a") },
    { path: "artefacts/uploads/p/1", size_bytes: 3, sha256: sha("b") },
  ],
};

describe("the manifest", () => {
  it("parses what a backup writes", () => {
    expect(parseManifest(JSON.stringify(manifest))).toEqual(manifest);
  });

  it("refuses what is not one, with the reason", () => {
    const bad = (m: unknown) => () => parseManifest(JSON.stringify(m));
    expect(() => parseManifest("{")).toThrow(ManifestInvalid);
    expect(bad({ ...manifest, format: "other" })).toThrow("format");
    expect(bad({ ...manifest, name: "../x" })).toThrow("names no backup");
    expect(bad({ ...manifest, files: [{ path: "../../etc/passwd", size_bytes: 1, sha256: sha("a") }] })).toThrow(
      "malformed",
    );
    expect(bad({ ...manifest, files: [manifest.files[1]] })).toThrow("no database dump");
    expect(bad({ ...manifest, files: [{ ...manifest.files[0], size_bytes: -1 }] })).toThrow("size");
  });

  it("matches the files found only when they are exactly the ones named, byte for byte", () => {
    const found = new Map(manifest.files.map((f) => [f.path, { sizeBytes: f.size_bytes, sha256: f.sha256 }]));
    expect(filesMismatch(manifest, found)).toBeNull();
    expect(filesMismatch(manifest, new Map([...found, ["extra", { sizeBytes: 1, sha256: sha("c") }]]))).toContain(
      "not in the manifest",
    );
    const changed = new Map(found).set("database.dump", { sizeBytes: 10, sha256: sha("f") });
    expect(filesMismatch(manifest, changed)).toContain("checksum of database.dump");
    const shorter = new Map(found).set("database.dump", { sizeBytes: 9, sha256: sha("a") });
    expect(filesMismatch(manifest, shorter)).toContain("9 bytes");
    const missing = new Map(found);
    missing.delete("artefacts/uploads/p/1");
    expect(filesMismatch(manifest, missing)).toContain("missing");
  });

  it("restores only over schemas at exactly the backup's migrations", () => {
    const live = [{ service: "projects", schema: "projects", migrations: ["M1", "M2"] }];
    expect(schemasMismatch(manifest.schemas, live)).toBeNull();
    expect(schemasMismatch(manifest.schemas, [{ ...live[0]!, migrations: ["M1", "M2", "M3"] }])).toContain(
      "another migration",
    );
    expect(schemasMismatch(manifest.schemas, [{ ...live[0]!, schema: "other" }])).toContain('"other"');
    expect(schemasMismatch(manifest.schemas, [])).toContain("does not back up");
    expect(
      schemasMismatch(manifest.schemas, [...live, { service: "policy", schema: "policy", migrations: ["P1"] }]),
    ).toContain("policy");
  });
});
