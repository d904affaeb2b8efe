// Each role on the pages of this part: a viewer reads every page and sees no write button; a member of another team
// gets the forbidden (or not-found) page the API's answer calls for; every page passes axe (no serious or critical violation).
import { expect, test } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";
import { scannedProject } from "./scanned-project.ts";

let projectId: string;

test.beforeAll(async ({ request }) => {
  const who = people();
  const created = await request.post(`${process.env.UI_API_URL}/v1/projects`, {
    headers: { authorization: `Bearer ${who.admin.token}` },
    data: { name: `Read only ${Date.now()}`, slug: `read-only-${Date.now()}`, team_id: who.teamId },
  });
  expect(created.status()).toBe(201);
  projectId = ((await created.json()) as { id: string }).id;
});

test("the sign-in page is accessible", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await screenshot(page, "sign-in");
  await expectAccessible(page);
});

test("a viewer reads every page and sees no write button", async ({ browser }) => {
  const page = await signedIn(browser, people().viewer);
  await expect(page.getByRole("heading", { name: "Projects" })).toBeVisible();
  await expect(page.getByRole("link", { name: /^Read only/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "New project" })).toHaveCount(0);
  await screenshot(page, "projects");
  await expectAccessible(page);

  await page.goto(`/projects/${projectId}`);
  await expect(page.getByRole("heading", { level: 1, name: /^Read only/ })).toBeVisible();
  for (const name of ["Edit", "Archive", "Upload and scan", "Scan source", "Scan image"])
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  await expectAccessible(page);

  await page.getByRole("link", { name: "Components" }).click();
  await expect(page.getByRole("heading", { name: "Components" })).toBeVisible();
  await expectAccessible(page);

  await page.goto(`/projects/${projectId}/vulnerabilities`);
  await expect(page.getByRole("heading", { name: "Vulnerabilities" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Triage" })).toHaveCount(0);
  await expectAccessible(page);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/projects");
  await expect(page.getByRole("link", { name: /^Read only/ })).toBeVisible();
  await screenshot(page, "projects-phone");
});

test("a member of another team gets the forbidden or not-found page the API answers", async ({ browser, request }) => {
  const page = await signedIn(browser, people().outsider);
  await page.goto(`/projects/${projectId}`);
  const problem = page.getByRole("alert");
  await expect(problem.locator("strong")).toHaveText(/^(Forbidden|Not found)$/i);
  await expect(problem).toContainText("Request id:");
  await expect(page.getByRole("button", { name: "Edit" })).toHaveCount(0);

  // The pages behind a project's overview answer the same.
  const scanned = await scannedProject(request);
  const component = "00000000-0000-4000-8000-000000000000";
  for (const path of ["scans", "graph", "releases/diff", `components/${component}`, "vulnerabilities"]) {
    await page.goto(`/projects/${scanned.id}/${path}`);
    await expect(problem.locator("strong").first()).toHaveText(/^(Forbidden|Not found)$/i);
    await expect(problem.first()).toContainText("Request id:");
  }
});
