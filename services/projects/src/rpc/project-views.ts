// Project rows as the contract's Project messages, with the names identity holds.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ProjectSchema, type Project } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import type { Caller } from "@sca/rpc";
import type { Directory, DirectoryNames } from "../clients/directory.ts";
import type { ProjectRow } from "../store/projects.ts";

const opt = <K extends string, V>(key: K, value: V | null): { [P in K]?: V } =>
  value === null ? {} : ({ [key]: value } as { [P in K]?: V });

export function projectView(p: ProjectRow, names: DirectoryNames): Project {
  const team = names.teams.get(p.teamId);
  return create(ProjectSchema, {
    id: p.id,
    name: p.name,
    slug: p.slug,
    teamId: p.teamId,
    teamName: team?.name ?? "",
    visibility: p.visibility,
    hasGitCredential: p.hasGitCredential,
    groupPath: team?.groupPath ?? [],
    scanCount: p.scanCount,
    releaseCount: p.releaseCount,
    severitySummary: p.severitySummary,
    licenseCategorySummary: p.licenseCategorySummary,
    createdAt: timestampFromDate(p.createdAt),
    updatedAt: timestampFromDate(p.updatedAt),
    ...opt("description", p.description),
    ...opt("defaultBranch", p.defaultBranch),
    ...opt("gitUrl", p.gitUrl),
    ...opt("businessUnit", p.businessUnit),
    ...opt("declaredLicense", p.declaredLicense),
    ...opt("distributionModel", p.distributionModel),
    ...opt("aiUsageContext", p.aiUsageContext),
    ...opt("ownerContact", p.ownerContact),
    ...opt("createdByUserId", p.createdByUserId),
    ...opt("createdByUserName", p.createdByUserId === null ? null : (names.users.get(p.createdByUserId) ?? null)),
    ...opt("archivedAt", p.archivedAt && timestampFromDate(p.archivedAt)),
    ...opt("lastScanAt", p.lastScanAt && timestampFromDate(p.lastScanAt)),
    ...opt("latestScanId", p.latestScanId),
    ...opt("latestScanStatus", p.latestScanStatus),
    ...opt("organizationId", p.organizationId),
  });
}

/** The rows as Project messages, with one directory call for all of them. */
export async function projectViews(
  directory: Directory,
  caller: Caller,
  rows: readonly ProjectRow[],
): Promise<Project[]> {
  const names = await directory.names(
    caller,
    rows.map((r) => r.teamId),
    rows.map((r) => r.createdByUserId),
  );
  return rows.map((r) => projectView(r, names));
}
