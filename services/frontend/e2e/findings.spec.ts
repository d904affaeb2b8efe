// Two-person confirmation and VEX, on a project whose findings come from CERN's editor SBOM (npm packages with OSV
// advisories): the team's policy makes false_positive a status one person may not reach alone. The developer asks for
// such a change, may not confirm it, withdraws it (Decline) and asks again; the viewer sees it waiting, without
// buttons; the super_admin (a second person, and a team administrator) confirms it and imports the developer's VEX
// export back (the import is the team administrators').
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";
import { projectScanned } from "./scanned-project.ts";

test.describe.configure({ mode: "serial" });

let projectId: string;
let exported: string;
const policy = () => `${process.env.UI_API_URL}/v1/gate-policies/teams/${people().teamId}`;
const headers = () => ({ authorization: `Bearer ${people().admin.token}` });

test.beforeAll(async ({ request }) => {
  // Before the scan, so that projects has heard of the policy (GatePolicyChanged) by the time the findings exist.
  const put = await request.put(policy(), {
    headers: headers(),
    data: { approval_required_statuses: ["false_positive"] },
  });
  expect([200, 201]).toContain(put.status());
  projectId = (await projectScanned(request, "Findings", [["cern-lhc-vdm-editor-e564943.cdx-1.2.json", "1.0"]])).id;
});

test.afterAll(async ({ request }) => {
  await request.delete(policy(), { headers: headers() });
});

const rows = (page: Page) => page.getByRole("table", { name: "Findings" }).locator("tbody tr");

async function askForFalsePositive(page: Page) {
  await rows(page)
    .first()
    .getByRole("button", { name: /^Triage / })
    .click();
  const triage = page.getByRole("form", { name: /^Triage / });
  await triage.getByLabel("State").selectOption("false_positive");
  await triage.getByRole("button", { name: "Save" }).click();
  await expect(triage.getByRole("status")).toContainText("waits for a second person");
  await triage.getByRole("button", { name: "Cancel" }).click();
  await expect(rows(page).first()).toContainText("awaiting confirmation");
  await expect(rows(page).first()).toContainText("asked by you");
}

test("the developer asks for a change a second person must confirm, withdraws it, asks again, exports VEX", async ({
  browser,
}) => {
  const page = await signedIn(browser, people().developer);
  await page.goto(`/projects/${projectId}/vulnerabilities`);
  await expect(page.getByRole("form", { name: "Import VEX" })).toHaveCount(0);
  await askForFalsePositive(page);
  // Their own request: the API wants another person.
  await rows(page)
    .first()
    .getByRole("button", { name: /^Confirm / })
    .click();
  await expect(rows(page).first().getByRole("alert")).toContainText(/second person|forbidden/i);
  // Declining is how the asker withdraws.
  await rows(page)
    .first()
    .getByRole("button", { name: /^Decline / })
    .click();
  await expect(rows(page).first()).not.toContainText("awaiting confirmation");
  await askForFalsePositive(page);
  await screenshot(page, "vulnerabilities-pending");
  await expectAccessible(page);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download OpenVEX" }).click();
  exported = readFileSync(await (await download).path(), "utf8");
  expect((JSON.parse(exported) as { "@context": string })["@context"]).toContain("openvex");
});

test("the viewer sees the changes waiting, without Confirm, Decline or Import", async ({ browser }) => {
  const page = await signedIn(browser, people().viewer);
  await page.goto(`/projects/${projectId}/vulnerabilities`);
  await expect(rows(page).first()).toContainText("awaiting confirmation");
  for (const name of [/^Confirm /, /^Decline /, /^Triage /])
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Import VEX" })).toHaveCount(0);
});

test("a second person confirms the change and imports VEX", async ({ browser }) => {
  const page = await signedIn(browser, people().admin);
  await page.goto(`/projects/${projectId}/vulnerabilities`);
  const first = rows(page).filter({ hasText: "awaiting confirmation" }).first();
  await expect(first).toContainText("asked by another person");
  const vulnerability = (await first.locator("td").first().textContent())!.replace("KEV", "").trim();
  await first.getByRole("button", { name: /^Confirm / }).click();
  await expect(rows(page).filter({ hasText: vulnerability }).first()).toContainText("false_positive");
  await expect(rows(page).filter({ hasText: "awaiting confirmation" })).toHaveCount(0);

  const form = page.getByRole("form", { name: "Import VEX" });
  await form.getByLabel("OpenVEX or CycloneDX VEX document").setInputFiles({
    name: "vex.openvex.json",
    mimeType: "application/json",
    buffer: Buffer.from(exported),
  });
  await form.getByRole("button", { name: "Import" }).click();
  await expect(page.getByTestId("vex-report")).toContainText(/^openvex: \d+ statements/);
  await screenshot(page, "vex-import");
  await expectAccessible(page);
});
