// The golden path in a real browser against a real portal: a developer signs in, creates the team's project, uploads
// juice-shop's real SBOM and watches the scan finish live, filters the components, triages a finding to not_affected
// with a justification, sees the gate's result with its reasons, downloads the SBOM, and sees the gate pass after a
// policy change.
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";

const SBOM = new URL("../../../../shared/data/sbom/cyclonedx/juice-shop-cyclonedx-npm.cdx-1.7.json", import.meta.url)
  .pathname;

const API = () => process.env.UI_API_URL!;
const CLOSED = new Set(["false_positive", "not_affected", "resolved", "resolved_with_pedigree"]);

interface Finding {
  id: string;
  status: string | null;
  version: number;
}
interface GateReason {
  code: string;
  components?: { license: string | null; purl: string | null }[];
}

test.afterAll(async ({ request }) => {
  await request.delete(`${API()}/v1/license-policies/teams/${people().teamId}`, {
    headers: { authorization: `Bearer ${people().admin.token}` },
  });
});

test("a developer scans juice-shop and triages a finding", async ({ browser, request }) => {
  const who = people();
  const page = await signedIn(browser, who.developer);

  const name = `Juice shop ${Date.now()}`;
  await page.getByRole("button", { name: "New project" }).click();
  const create = page.getByRole("form", { name: "New project" });
  await create.getByLabel("Name", { exact: true }).fill(name);
  await create.getByLabel("Team").selectOption({ label: who.teamName });
  await create.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const projectId = /\/projects\/([0-9a-f-]{36})/.exec(page.url())![1]!;

  await page.getByLabel("CycloneDX or SPDX document").setInputFiles(SBOM);
  await page.getByRole("button", { name: "Upload and scan" }).click();
  await expect(page).toHaveURL(/\/scans\/[0-9a-f-]{36}$/);
  // Live: the page is never reloaded; the status arrives over the WebSocket.
  await expect(page.getByTestId("scan-status")).toHaveText("succeeded", { timeout: 150_000 });
  await expect(page.getByRole("progressbar", { name: "Scan progress" })).toHaveAttribute("value", "100");
  await screenshot(page, "scan");

  await page.getByRole("link", { name: "Components" }).click();
  await expect(page.getByRole("table", { name: "Components" }).locator("tbody tr").first()).toBeVisible();
  await page.getByLabel("Name or purl").fill("express");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(/search=express/);
  const names = page.getByRole("table", { name: "Components" }).locator("tbody tr td:first-child");
  await expect(names.first()).toContainText("express");
  for (const text of await names.allTextContents()) expect(text).toContain("express");
  await screenshot(page, "components");
  await expectAccessible(page);

  await page.goto(`/projects/${projectId}`);
  await expect(page.getByTestId("gate-outcome")).toHaveText("fail");

  await page.getByRole("link", { name: "Vulnerabilities" }).click();
  const findings = page.getByRole("table", { name: "Findings" });
  await expect(findings.locator("tbody tr").first()).toBeVisible();
  const first = findings.locator("tbody tr").first();
  const vulnerability = (await first.locator("td").first().textContent())!.replace("KEV", "").trim();
  await first.getByRole("button", { name: /^Triage / }).click();
  const triage = page.getByRole("form", { name: `Triage ${vulnerability}` });
  await triage.getByLabel("State").selectOption("not_affected");
  await triage.getByLabel("Justification").selectOption("code_not_reachable");
  await triage.getByLabel("Detail").fill("The vulnerable function is never called.");
  await triage.getByRole("button", { name: "Save" }).click();
  await expect(triage).toBeHidden();
  await page.getByLabel("Status").selectOption("not_affected");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(findings.locator("tbody tr").first()).toContainText("not_affected (code_not_reachable)");
  await screenshot(page, "vulnerabilities");
  await expectAccessible(page);

  // The gate fails and says why: juice-shop ships fuzzball, whose license the default policy forbids.
  await page.goto(`/projects/${projectId}`);
  const gate = page.getByRole("region", { name: "Gate result" });
  await expect(gate.getByTestId("gate-outcome")).toHaveText("fail");
  await expect(gate.getByRole("listitem").filter({ hasText: "forbidden license" })).toContainText("fuzzball");
  const overview = page.getByRole("region", { name: "Overview" });
  await expect(overview.locator(".score").filter({ hasText: "Components" })).toContainText(/\d{3,}/);
  await expect(page.getByRole("table", { name: "Recent scans" }).locator("tbody tr")).toHaveCount(1);
  await screenshot(page, "project");

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download SBOM" }).click();
  const file = await download;
  const bom = JSON.parse(readFileSync(await file.path(), "utf8")) as { bomFormat: string; components: unknown[] };
  expect(bom.bomFormat).toBe("CycloneDX");
  expect(bom.components.length).toBeGreaterThan(100);

  // The gate passes after a policy change. Every open critical counts whatever the gate policy says (docs/gate.md),
  // so the team's administrator triages them through the API, and then excepts the forbidden licenses' packages in
  // the team's license policy: the page then shows the gate passing.
  const headers = { authorization: `Bearer ${who.admin.token}` };
  const criticals = await request.get(`${API()}/v1/projects/${projectId}/vulnerabilities`, {
    headers,
    params: { severity: "critical", limit: 500 },
  });
  expect(criticals.status()).toBe(200);
  for (const f of ((await criticals.json()) as { items: Finding[] }).items.filter((f) => !CLOSED.has(f.status ?? ""))) {
    const triaged = await request.patch(`${API()}/v1/vulnerability_findings/${f.id}/status`, {
      headers: { ...headers, "If-Match": `"${f.version}"` },
      data: { status: "not_affected", justification: "code_not_reachable", detail: "Not reached by the shop." },
    });
    expect(triaged.status()).toBe(200);
  }
  const verdict = await request.get(`${API()}/v1/projects/${projectId}/gate-result`, { headers });
  const reasons = ((await verdict.json()) as { reasons: GateReason[] }).reasons;
  expect(reasons.map((r) => r.code)).toEqual(["forbidden_licenses"]);
  const forbidden = reasons[0]!.components!;
  const policy = await request.put(`${API()}/v1/license-policies/teams/${who.teamId}`, {
    headers,
    data: {
      license_exceptions: forbidden.map((c) => ({
        spdx_id: c.license!,
        reason: "Approved for the shop's demo",
        component_purl: c.purl,
      })),
    },
  });
  expect(policy.status()).toBeLessThan(300);
  // The components are re-categorised after the policy's event: read again until the verdict follows.
  await expect(async () => {
    await page.reload();
    await expect(gate.getByTestId("gate-outcome")).toHaveText("pass", { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(gate).toContainText("No reason to fail.");
});
