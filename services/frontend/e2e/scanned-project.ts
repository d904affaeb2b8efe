// A project of the suite's team with two succeeded SBOM scans, releases "1.0" (CERN's small editor, 43 components)
// and "2.0" (laravel's demo, 62 components with their dependency tree): what the component, graph, diff and history
// pages read. Made once per worker through the API (the admin's token), so specs share it.
import { readFileSync } from "node:fs";
import { expect, type APIRequestContext } from "@playwright/test";
import { people } from "./people.ts";

const CYCLONEDX = new URL("../../../../shared/data/sbom/cyclonedx/", import.meta.url).pathname;

export interface ScannedProject {
  id: string;
  releases: { id: string; release: string }[];
}

let made: Promise<ScannedProject> | undefined;

export function scannedProject(request: APIRequestContext): Promise<ScannedProject> {
  made ??= make(request);
  return made;
}

function make(request: APIRequestContext): Promise<ScannedProject> {
  return projectScanned(request, "Releases", [
    ["cern-lhc-vdm-editor-e564943.cdx-1.2.json", "1.0"],
    ["laravel-7.12.0.cdx-1.4.json", "2.0"],
  ]);
}

/** A new project of the suite's team, each of `sboms` (a file of the CycloneDX examples, a release) scanned in turn. */
export async function projectScanned(
  request: APIRequestContext,
  name: string,
  sboms: readonly (readonly [string, string])[],
): Promise<ScannedProject> {
  const who = people();
  const api = process.env.UI_API_URL;
  const headers = { authorization: `Bearer ${who.admin.token}` };
  const created = await request.post(`${api}/v1/projects`, {
    headers,
    data: { name: `${name} ${Date.now()}`, slug: `${name.toLowerCase()}-${Date.now()}`, team_id: who.teamId },
  });
  expect(created.status()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;
  const releases: ScannedProject["releases"] = [];
  for (const [file, release] of sboms) {
    const upload = await request.post(`${api}/v1/projects/${id}/sbom-uploads`, {
      headers,
      multipart: { file: { name: file, mimeType: "application/json", buffer: readFileSync(CYCLONEDX + file) } },
    });
    expect(upload.status()).toBe(201);
    const { upload_id } = (await upload.json()) as { upload_id: string };
    const scan = await request.post(`${api}/v1/projects/${id}/scans`, {
      headers,
      data: { kind: "sbom", metadata: { release }, sbom_upload_id: upload_id },
    });
    expect(scan.status()).toBe(202);
    const scanId = ((await scan.json()) as { id: string }).id;
    await expect
      .poll(
        async () =>
          ((await (await request.get(`${api}/v1/scans/${scanId}`, { headers })).json()) as { status: string }).status,
        {
          timeout: 120_000,
        },
      )
      .toBe("succeeded");
    releases.push({ id: scanId, release });
  }
  return { id, releases };
}
