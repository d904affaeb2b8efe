// Issue 30's "people and portfolio" pages, one test per role's walk: notification preferences, routing rules and team
// chat webhooks; narrowing an API key and the key hash statistics; linked SSO identities; the advisory lookup; the
// dashboard's action queue and the portfolio search with its dependency paths and CSV. The portfolio search finds a
// transitive component of the suite's shared scanned project (e2e/scanned-project.ts: laravel's demo as its newest
// release); the advisory lookup finds a project of CERN's editor (npm packages with OSV advisories; laravel's have
// none in the local database) by one of its open findings' advisories, read through the API first.
import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";
import { projectScanned, scannedProject } from "./scanned-project.ts";

test.describe.configure({ mode: "serial" });

// A transitive component of laravel's demo (pulled in by symfony's packages), so its path has steps between.
const PACKAGE = "polyfill-mbstring";
let projectName: string;
let advisoryProjectName: string;
let advisory: string;

const nameOf = async (request: APIRequestContext, id: string) =>
  (
    (await (
      await request.get(`${process.env.UI_API_URL}/v1/projects/${id}`, {
        headers: { authorization: `Bearer ${people().admin.token}` },
      })
    ).json()) as { name: string }
  ).name;

async function projectFacts(request: APIRequestContext): Promise<void> {
  const api = process.env.UI_API_URL;
  const headers = { authorization: `Bearer ${people().admin.token}` };
  projectName = await nameOf(request, (await scannedProject(request)).id);
  const { id } = await projectScanned(request, "Advisories", [["cern-lhc-vdm-editor-e564943.cdx-1.2.json", "1.0"]]);
  advisoryProjectName = await nameOf(request, id);
  // in_triage: open (the portfolio search names a component's open findings), as every new finding starts.
  const open = await request.get(`${api}/v1/projects/${id}/vulnerabilities?status=in_triage&limit=1`, { headers });
  expect(open.status()).toBe(200);
  const findings = (await open.json()) as { items: { vulnerability_id: string }[] };
  expect(findings.items.length).toBe(1);
  advisory = findings.items[0]!.vulnerability_id;
}

test.beforeAll(async ({ request }) => {
  await projectFacts(request);
});

const rules = (page: Page) => page.getByRole("table", { name: "Routing rules" });

async function searchPortfolio(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Portfolio search" }).click();
  await page.getByLabel("Package", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/package=/);
}

async function lookUpAdvisory(page: Page): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Packages" }).click();
  await page.getByLabel("Advisory id or alias").fill(advisory);
  await page.getByRole("button", { name: "Find the advisory" }).click();
  await expect(page.getByTestId("advisory-hits")).toBeVisible();
}

test("the developer tunes preferences, narrows a key, searches the portfolio and looks an advisory up", async ({
  browser,
}) => {
  const who = people();
  const page = await signedIn(browser, who.developer);

  // Preferences: the first kind's e-mail switched and saved; the team's rules read, no rule form, no webhooks.
  await page.goto("/notifications");
  await page.getByRole("link", { name: "Preferences and routing" }).click();
  const prefs = page.getByRole("form", { name: "Preferences" });
  const email = prefs.getByRole("table", { name: "Channels by kind" }).getByRole("checkbox", { name: / by e-mail$/ });
  const first = email.first();
  const was = await first.isChecked();
  await first.setChecked(!was);
  await prefs.getByRole("button", { name: "Save preferences" }).click();
  await expect(prefs.getByRole("status")).toHaveText("Saved.");
  await expect(email.first()).toBeChecked({ checked: !was });
  await expect(rules(page)).toBeVisible();
  await expect(page.getByRole("form", { name: "New routing rule" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Chat webhooks" })).toHaveCount(0);
  await expectAccessible(page);

  // A read and write key made read only, one way; no hash statistics for a developer.
  await page.getByRole("link", { name: "API keys" }).click();
  const form = page.getByRole("form", { name: "New API key" });
  const name = `narrow-${Date.now()}`;
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Permissions").selectOption("read_write");
  await form.getByRole("button", { name: "Create key" }).click();
  const row = page.getByRole("table", { name: "API keys" }).locator("tbody tr").filter({ hasText: name });
  await expect(row).toContainText("read_write");
  page.once("dialog", (dialog) => void dialog.accept());
  await row.getByRole("button", { name: `Make ${name} read only` }).click();
  await expect(row).toContainText("read_only");
  await expect(row.getByRole("button", { name: /read only$/ })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Key hashes" })).toHaveCount(0);

  // No SSO account in the suite: the identities page says so.
  await page.getByRole("link", { name: "Sign-in identities" }).click();
  await expect(page.getByTestId("no-identities")).toBeVisible();
  await screenshot(page, "identities");
  await expectAccessible(page);

  // The advisory lookup names the project holding it; the portfolio search draws each hit's path and downloads CSV.
  await lookUpAdvisory(page);
  await expect(page.getByRole("heading", { name: advisory })).toBeVisible();
  await expect(
    page
      .getByRole("list", { name: "Components with the advisory" })
      .getByRole("link", { name: advisoryProjectName })
      .first(),
  ).toBeVisible();
  await screenshot(page, "advisory-lookup");
  await expectAccessible(page);

  await searchPortfolio(page, PACKAGE);
  const hits = page.getByRole("table", { name: "Matching components" }).locator("tbody tr");
  const hit = hits.filter({ hasText: projectName }).first();
  await expect(hit).toBeVisible();
  const path = hit.getByRole("list", { name: "Dependency path" }).getByRole("listitem");
  expect(await path.count()).toBeGreaterThan(2);
  await expect(path.last()).toContainText(`${PACKAGE}@`);
  await screenshot(page, "portfolio-search");
  await expectAccessible(page);
  const [csv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  const text = readFileSync(await csv.path(), "utf8");
  expect(text).toContain(projectName);
  expect(text).toContain(PACKAGE);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
  await expect(page.getByRole("heading", { level: 2, name: "Action queue" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: /^Gates blocked/ })).toBeVisible();
  await screenshot(page, "action-queue");
  await expectAccessible(page);
});

test("the viewer reads the same pages without a write control", async ({ browser }) => {
  const who = people();
  const page = await signedIn(browser, who.viewer);
  await page.goto("/account/notifications");
  await expect(rules(page)).toBeVisible();
  await expect(page.getByRole("form", { name: "New routing rule" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Chat webhooks" })).toHaveCount(0);
  await expect(rules(page).getByRole("button", { name: /^Remove rule / })).toHaveCount(0);
  await expectAccessible(page);
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(page.getByRole("button", { name: / read only$/ })).toHaveCount(0);
  await searchPortfolio(page, PACKAGE);
  await expect(
    page
      .getByRole("table", { name: "Matching components" })
      .locator("tbody tr")
      .filter({ hasText: projectName })
      .first(),
  ).toBeVisible();
  await expectAccessible(page);
});

test("the other team's developer sees only their own team's data", async ({ browser }) => {
  const who = people();
  const page = await signedIn(browser, who.outsider);
  await page.goto("/account/notifications");
  await expect(rules(page)).toBeVisible();
  const teams = page.getByLabel("Team", { exact: true }).locator("option");
  await expect(teams).toHaveCount(1);
  await expect(teams).not.toHaveText(who.teamName);
  await searchPortfolio(page, PACKAGE);
  await expect(page.getByTestId("hit-count")).toBeVisible();
  await expect(page.getByRole("table", { name: "Matching components" })).not.toContainText(projectName);
  await lookUpAdvisory(page);
  await expect(page.getByText(advisoryProjectName)).toHaveCount(0);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
  await expect(page.getByRole("heading", { level: 2, name: "Action queue" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Action queue" })).not.toContainText(projectName);
  await expectAccessible(page);
});

test("the super_admin routes the team's notifications, sets its Slack webhook and reads the key hashes", async ({
  browser,
}) => {
  const who = people();
  const page = await signedIn(browser, who.admin);
  await page.goto("/account/notifications");
  await page.getByLabel("Team", { exact: true }).selectOption({ label: who.teamName });
  const form = page.getByRole("form", { name: "New routing rule" });
  const name = `Criticals ${Date.now()}`;
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("From severity").selectOption("critical");
  await form.getByRole("checkbox", { name: "email" }).check();
  await form.getByLabel("E-mail recipients (separated by commas)").fill("security@example.com");
  await form.getByRole("button", { name: "Add rule" }).click();
  const rule = rules(page).locator("tbody tr").filter({ hasText: name });
  await expect(rule).toContainText("in_app, email");
  await expect(rule).toContainText("security@example.com");

  // The URL's secret path is sent once and never shown back: the page names only the host.
  const hooks = page.getByRole("form", { name: "Chat webhooks" });
  const secret = `S${Date.now()}cret`;
  await hooks.getByLabel(/^Slack webhook URL/).fill(`https://hooks.slack.com/services/T0/B0/${secret}`);
  await hooks.getByRole("button", { name: "Save webhooks" }).click();
  await expect(hooks.getByLabel(/^Slack webhook URL/)).toHaveAccessibleName(/set \(hooks\.slack\.com\)/);
  await expect(hooks.getByLabel(/^Slack webhook URL/)).toHaveValue("");
  expect(await page.content()).not.toContain(secret);
  await screenshot(page, "notification-settings");
  await expectAccessible(page);
  await hooks.getByRole("button", { name: "Remove the Slack webhook" }).click();
  await expect(hooks.getByLabel(/^Slack webhook URL/)).toHaveAccessibleName(/not set/);
  page.once("dialog", (dialog) => void dialog.accept());
  await rule.getByRole("button", { name: `Remove rule ${name}` }).click();
  await expect(rule).toHaveCount(0);

  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByTestId("hash-stats")).toContainText(/Active keys\s*\d+/);
  await screenshot(page, "api-key-hashes");
  await expectAccessible(page);
});
