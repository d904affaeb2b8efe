// A projects stack (over a temporary artefact directory) with one project holding a real SBOM, juice-shop's, as an
// inventory ingested the way the scanner-runner hands it over: what the component and license-finding read tests
// start from. A viewer of the project's team and a team_admin of another team come with it.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { fixturesOf, ingestArtefact, sharedDir } from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "../projects-stack.ts";

export const JUICE_SHOP_SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "juice-shop-cyclonedx-npm.cdx-1.7.json");

export interface JuiceShopProject {
  stack: ProjectsStack;
  /** A viewer on the project's team. */
  member: string;
  /** A team_admin of another team. */
  outsider: string;
  projectId: string;
  /** The ingested scan. */
  scanId: string;
  close(): Promise<void>;
}

/** `name` and `slug` name the project (the slug gets a random suffix); `release`, the scan's release label. */
export async function startJuiceShopProject(opts: {
  name: string;
  slug: string;
  release?: string;
}): Promise<JuiceShopProject> {
  const dir = await mkdtemp(join(tmpdir(), `sca-${opts.slug}-`));
  const stack = await startProjectsStack({ ARTEFACT_DIR: dir });
  const close = async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const team = await stack.team();
    const other = await stack.team();
    const member = (await stack.person([[team.id, "viewer"]])).token;
    const outsider = (await stack.person([[other.id, "team_admin"]])).token;
    const created = await stack.request("POST", "/v1/projects", {
      bearer: await stack.superAdminToken(),
      body: { name: opts.name, slug: `${opts.slug}-${randomUUID().slice(0, 6)}`, team_id: team.id },
    });
    const projectId = created.json.id as string;
    const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(await readFile(JUICE_SHOP_SBOM));
    const scanId = await ingestArtefact(
      stack.projects.client(InventoryService),
      new DirectoryArtefactStore(dir),
      projectId,
      artefact,
      {
        release: opts.release,
      },
    );
    return { stack, member, outsider, projectId, scanId, close };
  } catch (err) {
    await close();
    throw err;
  }
}
