// The pages behind a project's overview, opened by each role: a component's detail (licenses, vulnerabilities, where
// it comes from), the dependency graph, the release diff and the whole scan history. The team's developer and viewer
// read them (roles.spec.ts has another team's member meet the API's problem on each). Each page passes axe.
import { expect, test, type Browser } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people, type Person } from "./people.ts";
import { scannedProject, type ScannedProject } from "./scanned-project.ts";

let project: ScannedProject;

test.beforeAll(async ({ request }) => {
  project = await scannedProject(request);
});

// The developer's pass also filters, compares again, takes the screenshots and runs axe; the viewer's only reads (the
// markup is the same), which keeps the suite's added time small.
async function readsEveryPage(browser: Browser, person: Person, thorough: boolean) {
  const page = await signedIn(browser, person);
  await page.goto(`/projects/${project.id}`);
  await page.getByRole("link", { name: "Every scan" }).click();
  const scans = page.getByRole("table", { name: "Scans" });
  await expect(scans.locator("tbody tr")).toHaveCount(2);
  if (thorough) {
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await expect(page).toHaveURL(/status=failed/);
    await expect(scans.locator("tbody tr")).toHaveCount(0);
    await page.getByLabel("Status").selectOption("succeeded");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await expect(scans.locator("tbody tr").first()).toContainText("2.0");
    await screenshot(page, "scan-history");
    await expectAccessible(page);
  }

  await page.goto(`/projects/${project.id}/graph`);
  await expect(page.getByTestId("graph-counts")).toContainText("62 components");
  const tree = page.getByRole("region", { name: "Dependency tree" });
  await expect(tree).toContainText("cyclonedx-php-composer-demo");
  if (thorough) {
    await screenshot(page, "dependency-graph");
    await expectAccessible(page);
  }

  // A transitive component: its page names the component that pulls it in.
  await page.goto(`/projects/${project.id}/components?search=polyfill-mbstring`);
  await page.getByRole("table", { name: "Components" }).getByRole("link").first().click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("polyfill-mbstring");
  await expect(page.getByRole("region", { name: "Licenses" })).toContainText("MIT");
  const origin = page.getByRole("region", { name: "Where it comes from" });
  await expect(origin).toContainText("transitive");
  await expect(origin.getByRole("list", { name: "Pulled in by" }).getByRole("listitem").first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Vulnerabilities" })).toBeVisible();
  if (thorough) {
    await screenshot(page, "component");
    await expectAccessible(page);
  }

  await page.goto(`/projects/${project.id}`);
  await page.getByRole("link", { name: "Release diff" }).click();
  const summary = page.getByRole("region", { name: "Summary" });
  await expect(summary.locator(".score").filter({ hasText: "Components added" })).toContainText("62");
  await expect(summary.locator(".score").filter({ hasText: "Components removed" })).toContainText("43");
  await expect(page.getByRole("table", { name: "Added components" }).locator("tbody tr")).toHaveCount(62);
  if (thorough) {
    await screenshot(page, "release-diff");
    await expectAccessible(page);
  }
  if (!thorough) return;
  // The same release on both sides is an empty diff.
  await page.getByLabel("From").selectOption({ value: project.releases[1]!.id });
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(summary.locator(".score").filter({ hasText: "Components added" })).toContainText("0");
}

test("the team's developer reads a component, the graph, the release diff and the scan history", async ({
  browser,
}) => {
  await readsEveryPage(browser, people().developer, true);
});

test("the team's viewer reads them too", async ({ browser }) => {
  await readsEveryPage(browser, people().viewer, false);
});
