// sca gate: the build gate's verdict of the project's latest succeeded scan, exit 0 pass, 1 fail, 2 no answer.
// --wait first follows the project's newest scan while it is queued or running; when that scan failed or was
// cancelled the gate exits 2 (the verdict would judge an older scan than the one the pipeline just made).
import { Option, type Command } from "commander";
import { CliError, EXIT } from "../exit-codes.ts";
import { followScan, isFinished } from "../follow-scan.ts";
import { answer, type Portal } from "../portal.ts";
import { resolveProject, type Project } from "../projects.ts";
import { GATE_FORMATS, gateReport, type GateFormat } from "../report/gate-reports.ts";
import type { Session } from "../session.ts";

interface GateOptions {
  project: string;
  wait?: boolean;
  format: GateFormat;
  artifact?: string;
}

export function gateCommand(program: Command, session: Session): void {
  program
    .command("gate")
    .description("the build gate's verdict: exit 0 pass, 1 fail (reasons printed), 2 portal unreachable or scan failed")
    .requiredOption("-p, --project <id-or-slug>", "the project judged")
    .option("--wait", "wait for the project's newest scan to finish first")
    .addOption(
      new Option("--format <format>", "how the verdict is written to stdout").choices(GATE_FORMATS).default("text"),
    )
    .option("--artifact <path>", "SARIF: the repository file results point at (the SBOM or lockfile scanned)")
    .action(async (opts: GateOptions) => {
      const portal = await session.connect();
      const project = await resolveProject(portal, opts.project);
      if (opts.wait) await waitForNewestScan(portal, project);
      await printGate(session, portal, project, opts.format, opts.artifact);
    });
}

async function waitForNewestScan(portal: Portal, project: Project): Promise<void> {
  const page = await answer(
    portal.api.GET("/v1/projects/{id}/scans", { params: { path: { id: project.id }, query: { page_size: 1 } } }),
  );
  const newest = page.items[0];
  if (!newest) return;
  const scan = isFinished(newest.status) ? newest : await followScan(portal, newest.id);
  if (scan.status !== "succeeded")
    throw new CliError(
      `the newest scan ${scan.id} ${scan.status}${scan.error_message ? `: ${scan.error_message}` : ""}`,
    );
}

export async function printGate(
  session: Session,
  portal: Portal,
  project: Project,
  format: GateFormat,
  artifact?: string,
): Promise<void> {
  const result = await answer(
    portal.api.GET("/v1/projects/{id}/gate-result", { params: { path: { id: project.id } } }),
  );
  const report = gateReport(format, result, {
    projectSlug: project.slug,
    portalUrl: new URL(portal.apiUrl).origin,
    artifact,
    toolVersion: session.version,
  });
  const paint = session.terminal.paint.bind(session.terminal);
  session.terminal.result(
    format === "text" ? report.replace(/^gate: \w+/, (head) => paint(result.passed ? "green" : "red", head)) : report,
  );
  process.exitCode = result.passed ? EXIT.ok : EXIT.failed;
}
