// sca scan sbom|source|image: upload what is scanned (streamed, with its progress), start the scan, follow it to
// its end (follow-scan.ts) and print the summary. With --gate, the gate's verdict of the new scan follows and sets
// the exit code as `sca gate` does. A failed or cancelled scan exits 2.
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Schemas } from "@sca/api-client";
import { Option, type Command } from "commander";
import { CliError, EXIT } from "../exit-codes.ts";
import { followScan, type Scan } from "../follow-scan.ts";
import { answer, scanHint, type Portal } from "../portal.ts";
import { resolveProject, type Project } from "../projects.ts";
import { GATE_FORMATS, type GateFormat } from "../report/gate-reports.ts";
import type { Session } from "../session.ts";
import { directoryZip } from "../source-zip.ts";
import { fileBody, multipart, sbomMediaType, upload } from "../upload.ts";
import { printGate } from "./gate.ts";

interface ScanOptions {
  project: string;
  create?: boolean;
  team?: string;
  release?: string;
  ref?: string;
  archive?: string;
  gate?: boolean;
  format: GateFormat;
  artifact?: string;
}

type ScanCreate = Schemas["ScanCreate"];
/** What a kind adds to the scan request; ref and metadata default to empty. */
type ScanRequest = Pick<ScanCreate, "kind"> & Partial<ScanCreate>;

function scanCommand(parent: Command, name: string, args: string, description: string): Command {
  return parent
    .command(`${name} ${args}`)
    .description(description)
    .requiredOption("-p, --project <id-or-slug>", "the project scanned")
    .option("--create", "create the project (slug as given) when it does not exist; needs --team")
    .option("--team <slug-or-id>", "the team a created project belongs to")
    .option("--release <label>", "label the scan as this release (metadata.release)")
    .option("--gate", "then judge the new scan with the build gate (exit 1 when it fails)")
    .addOption(
      new Option("--format <format>", "the gate verdict's format, with --gate").choices(GATE_FORMATS).default("text"),
    )
    .option("--artifact <path>", "SARIF: the repository file results point at (sbom: the file scanned)");
}

export function scanCommands(program: Command, session: Session): void {
  const scan = program.command("scan").description("upload and scan an SBOM, a source tree or a container image");

  scanCommand(scan, "sbom", "<file>", "scan an SBOM (CycloneDX JSON/XML, SPDX JSON/tag-value)").action(
    (file: string, opts: ScanOptions) =>
      runScan(session, { artifact: file, ...opts }, async (portal, project) => {
        const uploaded = await upload<Schemas["SbomUpload"]>(
          portal,
          `/v1/projects/${project.id}/sbom-uploads`,
          `upload ${basename(file)}`,
          await fileBody(file, sbomMediaType(file)),
        );
        return { kind: "sbom", sbom_upload_id: uploaded.upload_id };
      }),
  );

  scanCommand(scan, "source", "<dir-or-zip>", "scan a source tree: a directory (zipped as it is sent) or a .zip")
    .option("--ref <ref>", "the branch or commit the tree is, recorded with the scan")
    .action((path: string, opts: ScanOptions) =>
      runScan(session, opts, async (portal, project) => {
        const info = await stat(path).catch(() => null);
        if (!info) throw new CliError(`${path}: no such file or directory`);
        const inner = info.isDirectory() ? directoryZip(path) : await fileBody(path, "application/zip");
        const name = info.isDirectory() ? `${basename(path) || "source"}.zip` : basename(path);
        const uploaded = await upload<Schemas["SourceArchive"]>(
          portal,
          `/v1/projects/${project.id}/source-archives`,
          `upload ${name}`,
          multipart("upload", name, inner),
        );
        return { kind: "source", source_archive_id: uploaded.archive_id, ref: opts.ref ?? "" };
      }),
    );

  scanCommand(scan, "image", "<ref>", "scan a container image: pulled by the portal, or uploaded with --archive")
    .option("--archive <file>", "a `docker save` or OCI layout tar to upload instead of pulling")
    .action((ref: string, opts: ScanOptions) =>
      runScan(session, opts, async (portal, project) => {
        if (!opts.archive) return { kind: "container", ref };
        const uploaded = await upload<Schemas["ImageArchive"]>(
          portal,
          `/v1/projects/${project.id}/image-archives`,
          `upload ${basename(opts.archive)}`,
          multipart("upload", basename(opts.archive), await fileBody(opts.archive, "application/x-tar")),
        );
        return { kind: "container", ref, image_archive_id: uploaded.archive_id };
      }),
    );
}

async function runScan(
  session: Session,
  opts: ScanOptions,
  prepare: (portal: Portal, project: Project) => Promise<ScanRequest>,
): Promise<void> {
  const portal = await session.connect();
  const project = await resolveProject(portal, opts.project, opts.create ? { team: opts.team } : undefined);
  const body: ScanCreate = { ref: "", metadata: {}, ...(await prepare(portal, project)) };
  if (opts.release) body.metadata = { ...body.metadata, release: opts.release };
  const created = await answer(
    portal.api.POST("/v1/projects/{id}/scans", { params: { path: { id: project.id } }, body }),
    scanHint(portal),
  );
  session.terminal.info(`scan ${created.id} of ${project.slug} ${created.status}`);
  const scan = await followScan(portal, created.id);
  if (scan.status !== "succeeded")
    throw new CliError(`scan ${scan.id} ${scan.status}${scan.error_message ? `: ${scan.error_message}` : ""}`);
  if (!opts.gate || opts.format === "text") session.terminal.result(await summary(portal, project, scan));
  if (opts.gate) await printGate(session, portal, project, opts.format, opts.artifact);
  else process.exitCode = EXIT.ok;
}

const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;

async function summary(portal: Portal, project: Project, scan: Scan): Promise<string> {
  const overview = await answer(
    portal.api.GET("/v1/projects/{id}/overview", { params: { path: { id: project.id }, query: { scan_id: scan.id } } }),
  );
  const bySeverity = SEVERITIES.filter((s) => (overview.severity_distribution[s] ?? 0) > 0)
    .map((s) => `${s} ${overview.severity_distribution[s]}`)
    .join(", ");
  return (
    `scan ${scan.id} succeeded: ${overview.total_components} components` +
    `${bySeverity ? `; vulnerable components by worst severity: ${bySeverity}` : "; no known vulnerabilities"}`
  );
}
