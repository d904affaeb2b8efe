// sca findings / components / export: the project's reads a read-only key is enough for. Lists walk every page
// (500 rows a request, the routes' maximum) and print a table, or the rows as JSON with --format json; exports
// stream the portal's document to stdout or --output without holding it.
import { createWriteStream } from "node:fs";
import { Writable } from "node:stream";
import { Option, type Command } from "commander";
import { CliError } from "../exit-codes.ts";
import { refusal, type Portal } from "../portal.ts";
import { resolveProject } from "../projects.ts";
import type { Session } from "../session.ts";

const PAGE = 500;

interface ListOptions {
  project: string;
  format: "text" | "json";
  severity?: string[];
  status?: string[];
  search?: string;
  release?: string;
}

async function allPages<T>(fetchPage: (offset: number) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const page = await fetchPage(rows.length);
    rows.push(...page.items);
    if (page.items.length === 0 || rows.length >= page.total) return rows;
  }
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function listCommand(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .requiredOption("-p, --project <id-or-slug>", "the project")
    .option("--severity <severity...>", "only these severities (critical, high, medium, low, info, unknown)")
    .option("--release <label>", "as of this release instead of the latest scan")
    .addOption(new Option("--format <format>", "table or JSON rows").choices(["text", "json"]).default("text"));
}

/** A page of rows from offset: the route's answer, or its refusal thrown. */
type PageOf<T> = (
  portal: Portal,
  projectId: string,
  opts: ListOptions,
  offset: number,
) => Promise<{ items: T[]; total: number }>;

/** A list command's action: every page of the project's rows, as a table of these columns or as JSON. */
function listAction<T>(session: Session, noun: string, page: PageOf<T>, columns: [string, (row: T) => string][]) {
  return async (opts: ListOptions) => {
    const portal = await session.connect();
    const project = await resolveProject(portal, opts.project);
    const rows = await allPages((offset) => page(portal, project.id, opts, offset));
    if (opts.format === "json") return session.terminal.result(JSON.stringify(rows, null, 2));
    const header = columns.map(([title]) => title);
    const cells = rows.map((row) => columns.map(([, cell]) => cell(row)));
    session.terminal.result(`${table([header, ...cells])}\n${rows.length} ${noun}(s)`);
  };
}

export function readCommands(program: Command, session: Session): void {
  listCommand(program, "findings", "the project's vulnerability findings")
    .option("--status <state...>", "only these VEX states (in_triage, exploitable, not_affected, ...)")
    .action(
      listAction(
        session,
        "finding",
        async (portal, id, opts, offset) => {
          const { data, error, response } = await portal.api.GET("/v1/projects/{id}/vulnerabilities", {
            params: {
              path: { id },
              query: { limit: PAGE, offset, severity: opts.severity, status: opts.status, release: opts.release },
            },
          });
          if (!data) throw refusal(response, error);
          return data;
        },
        [
          ["SEVERITY", (f) => f.severity],
          ["VULNERABILITY", (f) => f.vulnerability_id],
          ["COMPONENT", (f) => `${f.component_name}@${f.component_version ?? "?"}`],
          ["STATUS", (f) => f.status],
          ["FIXED IN", (f) => (f.fixed_versions ?? []).join(", ")],
        ],
      ),
    );

  listCommand(program, "components", "the project's components")
    .option("--search <text>", "only names or purls containing this")
    .action(
      listAction(
        session,
        "component",
        async (portal, id, opts, offset) => {
          const { data, error, response } = await portal.api.GET("/v1/projects/{id}/components", {
            params: {
              path: { id },
              query: { limit: PAGE, offset, severity: opts.severity, search: opts.search, release: opts.release },
            },
          });
          if (!data) throw refusal(response, error);
          return data;
        },
        [
          ["NAME", (c) => c.name],
          ["VERSION", (c) => c.version ?? ""],
          ["LICENSE", (c) => c.license ?? ""],
          ["WORST SEVERITY", (c) => c.severity_max ?? ""],
          ["PURL", (c) => c.purl ?? ""],
        ],
      ),
    );

  const exportCommand = program.command("export").description("download the project's SBOM or VEX document");
  exportCommand
    .command("sbom")
    .description("the project's SBOM")
    .requiredOption("-p, --project <id-or-slug>", "the project")
    .addOption(
      new Option("--format <format>", "the document's format")
        .choices(["cyclonedx-json", "cyclonedx-xml", "spdx-json"])
        .default("cyclonedx-json"),
    )
    .option("--release <label>", "as of this release instead of the latest scan")
    .option("-o, --output <file>", "write here instead of stdout")
    .action(async (opts: { project: string; format: string; release?: string; output?: string }) => {
      const portal = await session.connect();
      const project = await resolveProject(portal, opts.project);
      const query = new URLSearchParams({ format: opts.format, ...(opts.release ? { release: opts.release } : {}) });
      await download(session, portal, `/v1/projects/${project.id}/sbom?${query.toString()}`, opts.output);
    });
  exportCommand
    .command("vex")
    .description("the project's VEX document, built from the findings' triage")
    .requiredOption("-p, --project <id-or-slug>", "the project")
    .addOption(
      new Option("--format <format>", "the document's format").choices(["openvex", "cyclonedx"]).default("openvex"),
    )
    .option("-o, --output <file>", "write here instead of stdout")
    .action(async (opts: { project: string; format: string; output?: string }) => {
      const portal = await session.connect();
      const project = await resolveProject(portal, opts.project);
      await download(session, portal, `/v1/projects/${project.id}/vex?format=${opts.format}`, opts.output);
    });
  exportCommand
    .command("signature-bundle")
    .description("the signed SBOM of the latest scan with its signatures and VERIFY.md, a zip (check it: sca verify)")
    .requiredOption("-p, --project <id-or-slug>", "the project")
    .requiredOption("-o, --output <file>", "the zip to write")
    .action(async (opts: { project: string; output: string }) => {
      const portal = await session.connect();
      const project = await resolveProject(portal, opts.project);
      await download(session, portal, `/v1/projects/${project.id}/sbom/signature-bundle`, opts.output);
    });
}

async function download(session: Session, portal: Portal, path: string, output: string | undefined): Promise<void> {
  const response = await portal.send(() => new Request(`${portal.apiUrl}${path}`));
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not a problem document */
    }
    throw refusal(response, body);
  }
  if (!response.body) throw new CliError(`${path}: an empty answer`);
  const sink = output ? createWriteStream(output) : process.stdout;
  await portal.wait(response.body.pipeTo(Writable.toWeb(sink), { preventClose: !output }));
  if (output) session.terminal.info(`wrote ${output}`);
}
