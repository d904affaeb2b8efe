// The governance pages of issue 30, one walk per role over the scanned project of e2e/scanned-project.ts: approvals
// (asked by the developer, decided by a second person with If-Match, the API's 412 shown), obligations' fulfilments
// and the notice, team and organization policies with where each value comes from, and organization verdicts.
// The tests share the approval the developer asks for, so they run in this order.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";
import { scannedProject } from "./scanned-project.ts";

test.describe.configure({ mode: "serial" });

let approvalId = "";
let componentId = "";

const api = process.env.UI_API_URL;
const asAdmin = () => ({ authorization: `Bearer ${people().admin.token}` });

async function firstComponent(request: APIRequestContext, projectId: string): Promise<string> {
  const answer = await request.get(`${api}/v1/projects/${projectId}/components?limit=1`, { headers: asAdmin() });
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { items: { component_id: string }[] }).items[0]!.component_id;
}

// The suite's later specs read the team's gate and license policies: whatever this file left is removed.
test.afterAll(async ({ request }) => {
  const teamId = people().teamId;
  for (const path of [`/v1/gate-policies/teams/${teamId}`, `/v1/license-policies/teams/${teamId}`])
    expect((await request.delete(`${api}${path}`, { headers: asAdmin() })).status()).toBe(204);
});

test("the developer asks for an approval, records a fulfilment and reads the notice; edits no policy", async ({
  browser,
  request,
}) => {
  const who = people();
  const project = await scannedProject(request);
  componentId = await firstComponent(request, project.id);
  const page = await signedIn(browser, who.developer);

  await page.goto(`/projects/${project.id}/components/${componentId}`);
  await page.getByRole("button", { name: "Ask for approval" }).click();
  await expect(page).toHaveURL(/\/approvals\/[0-9a-f-]{36}$/);
  approvalId = page.url().split("/").pop()!;
  await expect(page.getByTestId("approval-status")).toHaveText("pending");
  await expect(page.getByText(/\(you\)/)).toBeVisible();
  // Deciding needs team_admin, and never the requester: no decision form, but the requester may withdraw.
  await expect(page.getByRole("form", { name: "Decide" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Withdraw the request" })).toBeVisible();
  await expectAccessible(page);

  await page.goto(`/projects/${project.id}/licenses`);
  const obligations = page.getByRole("table", { name: "Obligations" }).locator("tbody tr");
  const first = obligations.first();
  await first.getByText("Record fulfilment").click();
  const note = `Shipped in THIRD-PARTY ${Date.now()}`;
  await first.getByLabel("What was done").fill(note);
  await first.getByLabel("Evidence URL").fill("https://example.com/third-party");
  await first.getByRole("button", { name: "Save" }).click();
  await expect(obligations.filter({ hasText: note })).toHaveCount(1);
  await page.getByLabel("Fulfilled").selectOption("yes");
  await page.getByRole("button", { name: "Filter obligations" }).click();
  await expect(page).toHaveURL(/fulfilled=yes/);
  // The unfiltered rows (the note's among them) stay until the filtered answer replaces them: wait until no row
  // reads otherwise before reading them all.
  const fulfilment = obligations.locator("td:last-child > div > p");
  await expect(fulfilment.filter({ hasNotText: /^yes/ })).toHaveCount(0);
  await expect(obligations.filter({ hasText: note })).toHaveCount(1);
  for (const text of await fulfilment.allTextContents()) expect(text).toMatch(/^yes/);
  await screenshot(page, "obligations-fulfilment");
  await expectAccessible(page);

  await page.getByRole("link", { name: "The notice" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Notice" })).toBeVisible();
  await expect(page.getByLabel("Notice text")).not.toBeEmpty();
  const saved = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download the notice" }).click();
  expect((await saved).suggestedFilename()).toMatch(/^NOTICE-.+\.txt$/);
  await screenshot(page, "notice");
  await expectAccessible(page);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policies" }).click();
  const gate = page.getByRole("table", { name: "Team gate policy" });
  await expect(gate.locator("tbody tr").filter({ hasText: "EPSS threshold" })).toContainText(
    /(organization|deployment|default)$/,
  );
  await expect(page.getByRole("form", { name: /^Edit the team's/ })).toHaveCount(0);
  await expect(page.getByTestId("license-policy-source")).toBeVisible();
  await expectAccessible(page);
});

test("the super_admin decides the approval as the second person, meets the API's 412, edits policies and rules", async ({
  browser,
  request,
}) => {
  const who = people();
  const page = await signedIn(browser, who.admin);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
  await page.getByLabel("Status").selectOption("pending");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(/status=pending/);
  const rows = page.getByRole("table", { name: "Approvals" }).locator("tbody tr");
  for (const status of await rows.locator("td:nth-child(3)").allTextContents()) expect(status).toBe("pending");
  await screenshot(page, "approvals");
  await expectAccessible(page);

  await page.goto(`/approvals/${approvalId}`);
  await expect(page.getByTestId("approval-status")).toHaveText("pending");
  // Someone else starts the review behind the page's back: the page's If-Match ("1") is now stale.
  const moved = await request.patch(`${api}/v1/approvals/${approvalId}/transition`, {
    headers: { ...asAdmin(), "If-Match": '"1"' },
    data: { action: "under_review" },
  });
  expect(moved.status()).toBe(200);
  const decide = page.getByRole("form", { name: "Decide" });
  await decide.getByLabel("Decision note").fill("Reviewed its license and advisories.");
  await decide.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("alert")).toContainText("Precondition Failed");
  await expect(page.getByRole("alert")).toContainText("the approval request is at version 2");
  await expect(
    page.getByText(/Someone changed this request since you opened it: it is now under_review/),
  ).toBeVisible();
  await expect(page.getByTestId("approval-status")).toHaveText("under_review");
  await decide.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("approval-status")).toHaveText("approved");
  await expect(page.getByText("Reviewed its license and advisories.")).toBeVisible();
  await expect(page.getByRole("form", { name: "Decide" })).toHaveCount(0);
  await screenshot(page, "approval");
  await expectAccessible(page);

  // The team's gate policy: EPSS set by the team, then the team's policy removed and the value inherited again.
  await page.goto(`/policies?team_id=${who.teamId}`);
  const gateRow = page.getByRole("table", { name: "Team gate policy" }).locator("tbody tr").filter({
    hasText: "EPSS threshold",
  });
  await expect(gateRow).toContainText(/(organization|deployment|default)$/);
  const gateForm = page.getByRole("form", { name: "Edit the team's gate policy" });
  await gateForm.getByLabel("Set epss threshold here").check();
  await gateForm.getByLabel("Threshold (0 to 1, empty turns the check off)").fill("0.5");
  await gateForm.getByRole("button", { name: "Save the gate policy" }).click();
  await expect(gateRow).toContainText(/0\.5\s*team$/);
  const licenseForm = page.getByRole("form", { name: "Edit the team's license policy" });
  await licenseForm.getByLabel("Category overrides").fill("MIT=allowed");
  await licenseForm.getByRole("button", { name: "Save the license policy" }).click();
  await expect(page.getByTestId("license-policy-source")).toHaveText("In force: team");
  await expect(page.getByRole("table", { name: "Team license policy" })).toContainText("Override: MIT");
  await expect(page.getByRole("form", { name: "Edit the organization's license policy" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Set the organization's gate policy" })).toBeVisible();
  await screenshot(page, "policies");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Remove the team's gate policy" }).click();
  await expect(gateRow).toContainText(/(organization|deployment|default)$/);
  await page.getByRole("button", { name: "Return to the organization's license policy" }).click();
  await expect(page.getByTestId("license-policy-source")).not.toHaveText("In force: team");

  // An organization verdict on the component: started, then approved with a deliberation note.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Verdicts" }).click();
  const start = page.getByRole("form", { name: "Start a ruling" });
  await start.getByLabel(/^Component id/).fill(componentId);
  await start.getByLabel(/^Published reason/).fill("Vetted by the open source office.");
  await start.getByRole("button", { name: "Start the ruling" }).click();
  const ruling = page.getByRole("table", { name: "Organization verdicts" }).locator("tbody tr").filter({
    hasText: componentId,
  });
  await expect(ruling).toContainText("under_review");
  await ruling.getByLabel("To").selectOption("approved");
  await ruling.getByLabel("Note").fill("Legal agreed on 29 Nov.");
  await ruling.getByRole("button", { name: "Move" }).click();
  await expect(ruling.locator("td:nth-child(2)")).toHaveText("approved");
  await screenshot(page, "verdicts");
  await expectAccessible(page);
});

test("the viewer reads every governance page and finds no write control", async ({ browser, request }) => {
  const who = people();
  const project = await scannedProject(request);
  const page = await signedIn(browser, who.viewer);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
  await page.getByRole("table", { name: "Approvals" }).getByRole("link").first().waitFor();
  await page.goto(`/approvals/${approvalId}`);
  await expect(page.getByTestId("approval-status")).toHaveText("approved");
  await expect(page.getByRole("form", { name: "Decide" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Withdraw the request" })).toHaveCount(0);
  await expectAccessible(page);

  await page.goto(`/projects/${project.id}/licenses`);
  await expect(page.getByRole("table", { name: "Obligations" }).locator("tbody tr").first()).toBeVisible();
  await expect(page.getByText("Record fulfilment")).toHaveCount(0);
  await expect(page.getByText("Change", { exact: true })).toHaveCount(0);

  await page.goto("/policies");
  await expect(page.getByRole("table", { name: "Team gate policy" })).toBeVisible();
  await expect(page.getByRole("form", { name: /^(Edit|Set) the/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Remove|Return to)/ })).toHaveCount(0);
  await expectAccessible(page);

  await page.goto("/verdicts");
  const ruling = page.getByRole("table", { name: "Organization verdicts" }).locator("tbody tr").filter({
    hasText: componentId,
  });
  await expect(ruling).toContainText("Vetted by the open source office.");
  await expect(page.getByRole("table", { name: "Organization verdicts" })).not.toContainText("Legal agreed");
  await expect(page.getByRole("form", { name: "Start a ruling" })).toHaveCount(0);
  await expect(ruling.getByRole("button", { name: "Move" })).toHaveCount(0);
  await expectAccessible(page);
});

test("the other team's developer gets the API's answers", async ({ browser, request }) => {
  const who = people();
  const project = await scannedProject(request);
  const page = await signedIn(browser, who.outsider);
  await page.goto(`/approvals/${approvalId}`);
  await expect(page.getByRole("alert").locator("strong").first()).toHaveText(/^Not found$/i);
  await page.goto(`/projects/${project.id}/notice`);
  await expect(page.getByRole("alert").locator("strong").first()).toHaveText(/^(Forbidden|Not found)$/i);
  await page.goto(`/policies?team_id=${who.teamId}`);
  await expect(page.getByRole("alert").locator("strong").first()).toHaveText(/^Not found$/i);
  await expectAccessible(page);
});
