// The one place a process turns its configuration (@sca/config's artefactStoreKeys) into its artefact store, so
// the gateway, the scan-orchestrator, the scanner-runner and projects always agree on the backend.
import { DirectoryArtefactStore } from "./directory-store.ts";
import { S3ArtefactStore } from "./s3-store.ts";
import type { ArtefactStore } from "./store.ts";

/** The loaded values of artefactStoreKeys. */
export interface ArtefactStoreSettings {
  ARTEFACT_BACKEND: "directory" | "s3";
  ARTEFACT_DIR: string;
  ARTEFACT_S3_ENDPOINT: string | undefined;
  ARTEFACT_S3_BUCKET: string;
  ARTEFACT_S3_REGION: string;
  ARTEFACT_S3_ACCESS_KEY_ID: string | undefined;
  ARTEFACT_S3_SECRET_ACCESS_KEY: string | undefined;
  ARTEFACT_S3_FORCE_PATH_STYLE: boolean;
  ARTEFACT_S3_QUOTA_BYTES: number;
}

export function openArtefactStore(settings: ArtefactStoreSettings): ArtefactStore {
  if (settings.ARTEFACT_BACKEND === "directory") return new DirectoryArtefactStore(settings.ARTEFACT_DIR);
  return new S3ArtefactStore({
    bucket: settings.ARTEFACT_S3_BUCKET,
    endpoint: settings.ARTEFACT_S3_ENDPOINT,
    region: settings.ARTEFACT_S3_REGION,
    accessKeyId: settings.ARTEFACT_S3_ACCESS_KEY_ID,
    secretAccessKey: settings.ARTEFACT_S3_SECRET_ACCESS_KEY,
    forcePathStyle: settings.ARTEFACT_S3_FORCE_PATH_STYLE,
    quotaBytes: settings.ARTEFACT_S3_QUOTA_BYTES,
  });
}
