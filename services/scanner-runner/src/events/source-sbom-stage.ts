// The head of a source or container scan: the tree fetched into a private workspace (the uploaded archive
// extracted, the project's repository cloned, or the image pulled and its layers unpacked), then cdxgen run over it,
// all in the sandbox; for a source tree the fingerprint and scancode stages run beside cdxgen
// (docs/scanner-runner.md, docs/source-scans.md, docs/container-scans.md).
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import type { ScanJob } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { CloneSources } from "../clients/clone-source.ts";
import type { RegistryLogins } from "../clients/registry-logins.ts";
import type { FingerprintFindings } from "../domain/fingerprint/known-files.ts";
import type { GoModToolchain } from "../domain/sbom/go-toolchain.ts";
import { imageRefOf } from "../domain/image-ref.ts";
import { SOURCE_STAGES, type SourceStage } from "../domain/scan-job.ts";
import { SBOM_MAX_BYTES } from "../domain/sbom/limits.ts";
import type { ArchiveLimits } from "../fetch/archive-entries.ts";
import { pullImageTree, type ImageLimits } from "../fetch/container-image.ts";
import { readRootPackageJson } from "../fetch/root-package-json.ts";
import { checkClone, cloneRepository, type CheckedClone, type CloneLimits, type ToolLine } from "../fetch/git-clone.ts";
import { imageArchiveTree } from "../fetch/image-archive.ts";
import type { UnpackTally } from "../fetch/image-layers.ts";
import { extractSourceArchive } from "../fetch/source-archive.ts";
import { openWorkspace } from "../sandbox/workspace.ts";
import { runCdxgen, type CdxgenOptions } from "../tools/cdxgen.ts";
import type { CdxgenPrestart, PrestartedCdxgen } from "../tools/cdxgen-prestart.ts";
import { readGoToolchains } from "../tools/go-toolchain.ts";
import type { AttemptReporter } from "./attempt-reporter.ts";
import {
  fingerprintStage,
  startFingerprinting,
  type FingerprintDeps,
  type FingerprintRun,
} from "./fingerprint-stage.ts";
import {
  recordFirstPartyLicenses,
  startTreeLicenses,
  type FirstPartyLicenseDeps,
  type TreeLicensesRun,
} from "./first-party-licenses-stage.ts";
import { ToolLog } from "./tool-log.ts";

/** What a source scan needs: where clones come from, the sandbox's limits, cdxgen. */
export interface SourceScanDeps {
  cloneSources: CloneSources;
  clone: CloneLimits;
  archive: ArchiveLimits;
  cdxgen: Omit<CdxgenOptions, "sbomMaxBytes">;
  /** SCAN_WORK_DIR */
  workDir: string;
  /** SCAN_SANDBOX_UID */
  sandboxUid: number;
  /** Container scans: the pull and the layers' unpacking (docs/container-scans.md). */
  image: ImageLimits;
  /** Container scans: the organization's login for the image's registry. */
  registryLogins: RegistryLogins;
  /** The vendored-OSS fingerprint stage (FINGERPRINT_*, docs/fingerprint.md). */
  fingerprint: FingerprintDeps;
  /** Source scans: the scancode first-party license stage (docs/scancode.md). */
  licenses: FirstPartyLicenseDeps;
  /** Source scans: cdxgen started ahead of the next one (CDXGEN_PRESTART_ENABLED; null when off). */
  prestart: CdxgenPrestart | null;
}

export interface SourceSbomDeps {
  orm: MikroORM;
  store: ArtefactStore;
  source: SourceScanDeps;
}

/**
 * What the head of a source scan hands on: the fingerprint stage's findings, the Go releases the tree's go.mod files
 * name, the scancode stage's pending record, the tree's root package.json.
 */
export interface HeadFindings {
  fingerprints?: FingerprintFindings | null;
  goToolchains?: GoModToolchain[];
  licensesRecorded?: Promise<unknown>;
  packageJson?: Buffer | null;
}

/**
 * A source or container scan's SBOM: the tree fetched into a private workspace (the uploaded archive extracted, the
 * project's repository cloned, or the image pulled and its layers unpacked), then cdxgen run over it, all in the
 * sandbox; the workspace is removed whatever happens.
 */
export async function buildSourceSbom(
  job: ScanJob,
  deps: SourceSbomDeps,
  reporter: AttemptReporter,
  boundary: () => Promise<void>,
  signal: AbortSignal,
  found: HeadFindings,
): Promise<Buffer> {
  const reach = (stage: SourceStage) => reporter.progress(SOURCE_STAGES[stage].step, SOURCE_STAGES[stage].percent);
  const { source } = deps;
  // A clone is checked before a workspace is taken: a refused one (no git_url, a host it may not reach) fetches
  // nothing, so a cdxgen waiting for the next scan is left waiting rather than killed and started again.
  let clone: CheckedClone | null = null;
  if (job.kind === "source" && !job.sourceArchive?.key) {
    await reach("cloning");
    const where = await source.cloneSources.of(job.projectId, signal);
    await boundary();
    clone = await checkClone(where, job.ref, source.clone);
  }
  // A source tree's cdxgen may be waiting, loaded, in a workspace of its own: the tree is fetched into that one.
  const ahead = job.kind === "source" ? (source.prestart?.take() ?? null) : null;
  const ws = ahead?.ws ?? (await openWorkspace(source.workDir, source.sandboxUid));
  let beside: AbortController | undefined;
  let licensing: TreeLicensesRun | undefined;
  let fingerprinting: FingerprintRun | null | undefined;
  try {
    if (job.kind === "container" && job.imageArchive?.key) {
      await reach("pulling");
      const read = await imageArchiveTree(ws, deps.store, job.imageArchive, job.ref, source.image, signal);
      await reporter.log("pull", "stdout", [
        `Read the uploaded image archive (${read.format}): ${read.image}@${read.digest}, ${read.layers} layers, ` +
          `${read.downloaded} bytes.`,
        unpackedLine(read),
      ]);
    } else if (job.kind === "container") {
      await reach("pulling");
      const image = imageRefOf(job.ref);
      const login = await source.registryLogins.of(job.teamId, image.registry, signal);
      await boundary();
      await reporter.log("pull", "stdout", [
        login
          ? `Pulling with the organization's registry login for ${image.registry}.`
          : `The organization keeps no registry login for ${image.registry}; pulling anonymously.`,
      ]);
      const pulled = await pullImageTree(ws, job.ref, source.image, login, signal);
      await reporter.log("pull", "stdout", [
        `Pulled ${pulled.image}@${pulled.digest}: ${pulled.layers} layers, ${pulled.downloaded} bytes downloaded.`,
        unpackedLine(pulled),
      ]);
    } else if (job.sourceArchive?.key) {
      await reach("extracting");
      const extracted = await extractSourceArchive(deps.store, job.sourceArchive, ws, source.archive, signal);
      await reporter.log("extract", "stdout", [
        `Extracted the uploaded archive: ${extracted.entries} entries, ${extracted.bytes} bytes.`,
      ]);
    } else if (clone) {
      const log = new ToolLog(reporter, "clone");
      try {
        await cloneRepository(ws, clone, source.clone, log.line, signal);
      } finally {
        await log.close();
      }
    }
    await boundary();
    await reach("fetched");
    if (job.kind === "source") found.packageJson = await readRootPackageJson(ws.tree);
    // A source tree's fingerprint and scancode stages only read the tree cdxgen reads: their work runs beside
    // cdxgen's, and each stage is reported (frames, then its held log lines) after cdxgen's, as before.
    beside = new AbortController();
    const besideSignal = AbortSignal.any([signal, beside.signal]);
    const cdxgenEnded = Promise.withResolvers<void>();
    if (job.kind === "source") {
      fingerprinting = startFingerprinting(ws, source.fingerprint, besideSignal);
      licensing = startTreeLicenses(deps.orm, source.licenses, ws, reporter, besideSignal, cdxgenEnded.promise);
    }
    const log = new ToolLog(reporter, "cdxgen");
    let sbom: Buffer;
    try {
      sbom = await (ahead
        ? startedAhead(ahead, log.line, signal)
        : runCdxgen(
            ws,
            {
              ...source.cdxgen,
              sbomMaxBytes: SBOM_MAX_BYTES,
              ...(job.kind === "container" ? { projectType: "oci-dir" as const } : {}),
            },
            log.line,
            signal,
          ));
    } finally {
      cdxgenEnded.resolve();
      await log.close();
    }
    await boundary();
    await reach("built");
    await reporter.log("cdxgen", "stdout", [`cdxgen wrote a CycloneDX SBOM of ${sbom.length} bytes.`]);
    if (job.kind === "source") {
      // cdxgen's go.mod reader skips the go and toolchain directives: Go's standard library and toolchain are read here.
      found.goToolchains = await readGoToolchains(ws.tree, signal);
      if (found.goToolchains.length) await reporter.log("cdxgen", "stdout", found.goToolchains.map(goToolchainLine));
    }
    found.fingerprints = await fingerprintStage(fingerprinting ?? null, source.fingerprint, reporter, signal);
    await boundary();
    if (licensing) {
      await reach("licensing");
      // Recorded by projects while the SBOM is read and ingested; the outcome waits for it (found.licensesRecorded).
      const recording = recordFirstPartyLicenses(job, source.licenses, licensing, reporter, signal);
      recording.catch(() => undefined); // awaited, and so thrown, before the outcome
      found.licensesRecorded = recording;
      await boundary();
    }
    return sbom;
  } catch (err) {
    // cdxgen or a stage failed, or the run ended: the work begun beside cdxgen stops, its held lines dropped.
    beside?.abort();
    licensing?.log.discard();
    throw err;
  } finally {
    // That work lets go of the tree before it is removed (a cold scancode run may still be reading it); a cdxgen
    // started ahead and never released (the fetch failed) goes with it.
    await Promise.all([licensing?.done, fingerprinting?.done, ahead?.discard()]);
    await ws.remove();
  }
}

/** cdxgen started ahead of this scan, released over the fetched tree; the log says so. */
async function startedAhead(ahead: PrestartedCdxgen, line: ToolLine, signal: AbortSignal): Promise<Buffer> {
  line("stdout", "cdxgen was started ahead of this scan (its modules loaded); running it over the fetched tree.");
  return ahead.run(line, signal);
}

/** One go.mod's Go release, for the scan's log. */
function goToolchainLine(t: GoModToolchain): string {
  return `${t.path} names Go ${t.version} (its ${t.directive} directive, line ${t.line}): the standard library and toolchain are components.`;
}

/** What stacking an image's layers did, for the scan's log. */
function unpackedLine(t: UnpackTally): string {
  return (
    `Unpacked ${t.entries} entries (${t.bytes} bytes), ${t.whiteouts} whiteouts applied, ` +
    `${t.skipped} entries skipped (devices, links leading out of the image, entries under a link).`
  );
}
