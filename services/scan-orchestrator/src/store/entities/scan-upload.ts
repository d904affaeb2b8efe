import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A file the edge streamed into the artefact store for a project: an SBOM a `sbom` scan names, or a source archive
 * a `source` scan names instead of cloning, or an image archive a `container` scan names instead of pulling. One no scan has named by expires_at is deleted with its artefact.
 */
export const ScanUpload = defineEntity({
  name: "ScanUpload",
  tableName: "scan_uploads",
  properties: {
    id: p.uuid().primary(),
    /** Projects and teams live in other services; the ids are kept as given. */
    projectId: p.uuid(),
    teamId: p.uuid(),
    kind: p.string().length(16).$type<"sbom" | "source_archive" | "image_archive">(),
    artefactKey: p.string().length(512),
    sizeBytes: p.bigint("number"),
    sha256: p.character().length(64),
    mediaType: p.string().length(255),
    fileName: p.string().length(255),
    uploadedByUserId: p.uuid().strictNullable(),
    uploadedByApiKeyId: p.uuid().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    expiresAt: p.datetime(),
  },
  uniques: [{ name: "scan_uploads_artefact_key_key", properties: ["artefactKey"] }],
  indexes: [
    { name: "scan_uploads_project", properties: ["projectId"] },
    { name: "scan_uploads_expires", properties: ["expiresAt"] },
  ],
  checks: [
    { name: "scan_uploads_kind_check", expression: "kind in ('sbom', 'source_archive', 'image_archive')" },
    { name: "scan_uploads_size_bytes_check", expression: "size_bytes >= 0" },
  ],
});

export type ScanUploadRow = InferEntity<typeof ScanUpload>;
