// The pages of part 2 (issue 30), each opened by each role in the suite's signed-in sessions: the dashboard with its
// charts, a project's licenses and obligations, the gate policy in effect with where each value comes from, the
// notifications with the bell, and API keys (the secret shown once, revoked). Runs after golden-path.spec.ts (the
// files run in order), whose gate failure reached the developer as a notification.
import { expect, test, type Page } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";
import { scannedProject } from "./scanned-project.ts";

// The count is read out after the word (a hidden ", N unread"); browsers may put a space before the comma.
const bell = (page: Page) => page.getByRole("link", { name: /^Notifications ?, \d+ unread$/ });

test("each role opens the dashboard, over the teams it may read", async ({ browser }) => {
  const who = people();
  for (const [person, seesTeam] of [
    [who.admin, true],
    [who.developer, true],
    [who.viewer, true],
    [who.outsider, false],
  ] as const) {
    const page = await signedIn(browser, person);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
    await expect(page.getByRole("img", { name: "Open findings by severity" })).toBeVisible();
    const teams = page.getByRole("table", { name: "Teams by risk" });
    if (seesTeam) await expect(teams.locator("tbody tr").filter({ hasText: who.teamName })).toHaveCount(1);
    else await expect(teams.locator("tbody tr").filter({ hasText: who.teamName })).toHaveCount(0);
    if (person === who.admin) await screenshot(page, "dashboard");
    await expectAccessible(page);
  }
});

test("the team reads a project's licenses, obligations and gate policy; an outsider gets the API's answer", async ({
  browser,
  request,
}) => {
  const who = people();
  const project = await scannedProject(request);
  for (const person of [who.developer, who.viewer]) {
    const page = await signedIn(browser, person);
    await page.goto(`/projects/${project.id}`);
    const policy = page.getByRole("table", { name: "Gate policy" });
    await expect(policy.locator("tbody tr").filter({ hasText: "EPSS threshold" })).toContainText(
      /(team|organization|deployment|default)$/,
    );
    await page.getByRole("link", { name: "Licenses" }).click();
    const rows = page.getByRole("table", { name: "Licenses" }).locator("tbody tr");
    await expect(rows.first()).toBeVisible();
    await page.getByLabel("Category").selectOption("allowed");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await expect(page).toHaveURL(/license_category=allowed/);
    await expect(rows.first()).toContainText("allowed");
    for (const text of await rows.locator("td:nth-child(3)").allTextContents()) expect(text).toBe("allowed");
    await expect(page.getByRole("table", { name: "Obligations" })).toBeVisible();
    if (person === who.developer) await screenshot(page, "licenses");
    await expectAccessible(page);
  }
  const outsider = await signedIn(browser, who.outsider);
  await outsider.goto(`/projects/${project.id}/licenses`);
  await expect(outsider.getByRole("alert").locator("strong").first()).toHaveText(/^(Forbidden|Not found)$/i);
});

test("the bell counts the unread notifications; the list marks them read", async ({ browser }) => {
  const who = people();
  const page = await signedIn(browser, who.developer);
  // The golden path's failing gate reaches the team's developers in-app; the notifier delivers it asynchronously.
  await expect(async () => {
    await page.reload();
    await expect(bell(page)).not.toHaveAccessibleName(/, 0 unread$/, { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  await bell(page).click();
  await expect(page.getByRole("heading", { name: "Notifications" })).toBeVisible();
  const list = page.getByRole("table", { name: "Notifications" });
  await expect(list.locator("tbody tr").first()).toBeVisible();
  await screenshot(page, "notifications");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Mark all read" }).click();
  await expect(bell(page)).toHaveAccessibleName(/, 0 unread$/);
  await expect(list.getByRole("button", { name: /^Mark read: / })).toHaveCount(0);

  for (const person of [who.viewer, who.outsider, who.admin]) {
    const other = await signedIn(browser, person);
    await bell(other).click();
    await expect(other.getByRole("heading", { name: "Notifications" })).toBeVisible();
    await expect(other.getByText(/\d+ notifications, \d+ unread/)).toBeVisible();
    await expectAccessible(other);
  }
});

test("a developer makes a project API key, sees its secret once and revokes it; a viewer may make none", async ({
  browser,
}) => {
  const who = people();
  const page = await signedIn(browser, who.developer);
  await page.getByRole("link", { name: "API keys" }).click();
  const form = page.getByRole("form", { name: "New API key" });
  const name = `ci-${Date.now()}`;
  await form.getByLabel("Name").fill(name);
  await expect(form.getByLabel("Scope")).toHaveValue("project");
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("raw-key")).toHaveText(/\S{20,}/);
  const row = page.getByRole("table", { name: "API keys" }).locator("tbody tr").filter({ hasText: name });
  await expect(row).toContainText("read_only");
  await screenshot(page, "api-keys");
  await expectAccessible(page);
  page.once("dialog", (dialog) => void dialog.accept());
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await expect(row).toHaveCount(0);
  await page.getByLabel("Include revoked keys").check();
  await expect(row).toContainText("revoked");

  const viewer = await signedIn(browser, who.viewer);
  await viewer.goto("/account/api-keys");
  await expect(viewer.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(viewer.getByRole("form", { name: "New API key" })).toHaveCount(0);
  await expectAccessible(viewer);

  const admin = await signedIn(browser, who.admin);
  await admin.goto("/account/api-keys");
  await expect(admin.getByRole("form", { name: "New API key" }).getByLabel("Scope")).toContainText("organization");
  await expectAccessible(admin);
});

test("every role looks a package up and reads About", async ({ browser }) => {
  const who = people();
  for (const [person, holds] of [
    [who.developer, true],
    [who.outsider, false],
  ] as const) {
    const page = await signedIn(browser, person);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Packages" }).click();
    await page.getByLabel("Ecosystem").selectOption("npm");
    await page.getByLabel("Package name").fill("express");
    await page.getByRole("button", { name: "Look up" }).click();
    await expect(page.getByRole("heading", { name: "npm/express" })).toBeVisible();
    // The golden path's juice-shop project holds express: its team sees it, the other team does not.
    const juiceShop = page
      .getByRole("list", { name: "Projects holding it" })
      .getByRole("link", { name: /^Juice shop/ });
    if (holds) await expect(juiceShop.first()).toBeVisible();
    else await expect(juiceShop).toHaveCount(0);
    if (holds) await screenshot(page, "package-lookup");
    await expectAccessible(page);
  }
  const viewer = await signedIn(browser, who.viewer);
  await viewer.getByRole("link", { name: "About" }).click();
  await expect(viewer.getByRole("heading", { level: 1, name: "About" })).toBeVisible();
  await expect(viewer.getByRole("table", { name: "Notices" }).locator("tbody tr").first()).toBeVisible();
  await screenshot(viewer, "about");
  await expectAccessible(viewer);
});

// Here rather than in admin.spec.ts: the queue has succeeded scans only once the golden path has run.
test("the super_admin reads the scan queue's succeeded scans, none of them cancellable", async ({ browser }) => {
  const admin = await signedIn(browser, people().admin);
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Scan queue" }).click();
  await admin.getByLabel("Status").selectOption("succeeded");
  await admin.getByRole("button", { name: "Filter", exact: true }).click();
  const scans = admin.getByRole("table", { name: "Scan queue" }).locator("tbody tr");
  await expect(scans.first()).toBeVisible();
  for (const status of await scans.locator("td:nth-child(3)").allTextContents()) expect(status).toBe("succeeded");
  await expect(admin.getByRole("button", { name: /^Cancel the scan/ })).toHaveCount(0);
  await screenshot(admin, "admin-scans");
  await expectAccessible(admin);
});
