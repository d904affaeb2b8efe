// The administration pages, one walk per role: the super_admin builds a small team hierarchy (create, move) and
// manages its members, saves and removes registry and tracker logins (their secrets never shown back), takes and
// downloads a backup, and opens a restore up to its confirmation (a wrong word is the API's refusal: a real restore
// would wipe the data the other specs use); a team_admin added through the page gets the API's not-found page on each
// of them, downloads the project's signed SBOM with its VERIFY.md and turns a second factor on, which the
// super_admin then clears before sending them a password reset and setting their role; the viewer gets the not-found pages and no signed
// SBOM button (the API refuses a viewer the signing artifacts).
import { randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { generateSync } from "otplib";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people, type Person } from "./people.ts";
import { scannedProject, type ScannedProject } from "./scanned-project.ts";

test.describe.configure({ mode: "serial" });

const ADMIN_PAGES = ["/admin/teams", "/admin/backups", "/admin/credentials"];
const tag = randomBytes(3).toString("hex");
let teamAdmin: Person;
let project: ScannedProject;

test.beforeAll(async ({ request }) => {
  project = await scannedProject(request);
  teamAdmin = { email: `team-admin-${tag}@ui.example.com`, password: `Ui-${randomBytes(12).toString("base64url")}` };
  const registered = await request.post(`${process.env.UI_API_URL}/v1/auth/register`, {
    data: { ...teamAdmin, full_name: "Team admin" },
  });
  expect(registered.status()).toBe(201);
});

const accept = (page: Page) => page.once("dialog", (dialog) => void dialog.accept());

async function notFoundOnEveryAdminPage(page: Page, teamId: string) {
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const name of ["Teams", "Backups", "Logins"]) await expect(nav.getByRole("link", { name })).toHaveCount(0);
  for (const path of [...ADMIN_PAGES, `/admin/teams/${teamId}`]) {
    await page.goto(path);
    await expect(page.getByRole("alert").locator("strong")).toHaveText(/^Not found$/i);
  }
}

test("the super_admin builds a team hierarchy, manages members, logins and backups", async ({ browser }) => {
  const who = people();
  const admin = await signedIn(browser, who.admin);
  const nav = admin.getByRole("navigation", { name: "Main" });

  await nav.getByRole("link", { name: "Teams" }).click();
  await expect(admin.getByRole("table", { name: "Organizations" }).locator("tbody tr").first()).toBeVisible();
  const create = admin.getByRole("form", { name: "New team" });
  for (const name of [`Parent ${tag}`, `Child ${tag}`]) {
    await create.getByLabel("Name").fill(name);
    await create.getByLabel("Slug").fill(name.toLowerCase().replace(" ", "-"));
    await create.getByRole("button", { name: "Create team" }).click();
    await expect(create.getByRole("status")).toHaveText(`Team ${name} created.`);
  }
  await admin.getByLabel("Name or slug").fill(tag);
  await admin.getByRole("button", { name: "Filter", exact: true }).click();
  const teams = admin.getByRole("table", { name: "Teams" }).locator("tbody tr");
  await expect(teams).toHaveCount(2);
  await screenshot(admin, "admin-teams");
  await expectAccessible(admin);

  await teams.getByRole("link", { name: `Child ${tag}` }).click();
  await expect(admin.getByRole("heading", { name: `Team Child ${tag}` })).toBeVisible();
  await admin.getByLabel("Move under").selectOption({ label: `Parent ${tag}` });
  await admin.getByRole("button", { name: "Move", exact: true }).click();
  await expect(admin.locator("main > p").first()).toContainText(`Parent team: Parent ${tag}`);
  const add = admin.getByRole("form", { name: "Add member" });
  await add.getByLabel("E-mail").fill(who.viewer.email);
  await add.getByRole("button", { name: "Add" }).click();
  const members = admin.getByRole("table", { name: "Members" }).locator("tbody tr");
  await expect(members).toHaveCount(1);
  await expect(admin.getByLabel(`Role of ${who.viewer.email}`)).toHaveValue("developer");
  await admin.getByLabel(`Role of ${who.viewer.email}`).selectOption("viewer");
  await expect(admin.getByLabel(`Role of ${who.viewer.email}`)).toHaveValue("viewer");
  await screenshot(admin, "admin-team");
  await expectAccessible(admin);
  accept(admin);
  await members.getByRole("button", { name: `Remove ${who.viewer.email}` }).click();
  await expect(members).toHaveCount(0);

  // The team_admin of the next test: a person of this spec's own, made team_admin of the suite's team here.
  await admin.goto(`/admin/teams/${who.teamId}`);
  await add.getByLabel("E-mail").fill(teamAdmin.email);
  await add.getByLabel("Role").selectOption("team_admin");
  await add.getByRole("button", { name: "Add" }).click();
  await expect(admin.getByLabel(`Role of ${teamAdmin.email}`)).toHaveValue("team_admin");

  await nav.getByRole("link", { name: "Logins" }).click();
  const secret = `never-shown-${tag}`;
  const registry = admin.getByRole("form", { name: "Add registry login" });
  await registry.getByLabel("Registry host").fill(`https://Registry-${tag}.example.com:5000/v2/`);
  await registry.getByLabel("User name").fill("puller");
  await registry.getByLabel("Password").fill(secret);
  await registry.getByRole("button", { name: "Save registry login" }).click();
  const registries = admin.getByRole("table", { name: "Registry logins" }).locator("tbody tr");
  await expect(registries.filter({ hasText: `registry-${tag}.example.com:5000` })).toContainText("puller");
  await expect(registry.getByLabel("Password")).toHaveValue("");
  const tracker = admin.getByRole("form", { name: "Add tracker login" });
  await tracker.getByLabel("Tracker host").fill(`tracker-${tag}.example.com`);
  await tracker.getByLabel("User name").fill("filer");
  await tracker.getByLabel("API token").fill(secret);
  await tracker.getByRole("button", { name: "Save tracker login" }).click();
  const trackers = admin.getByRole("table", { name: "Tracker logins" }).locator("tbody tr");
  await expect(trackers.filter({ hasText: `tracker-${tag}.example.com` })).toContainText("filer");
  await expect(admin.locator("main")).not.toContainText(secret);
  await screenshot(admin, "admin-credentials");
  await expectAccessible(admin);
  accept(admin);
  await admin.getByRole("button", { name: `Remove registry-${tag}.example.com:5000` }).click();
  await expect(registries.filter({ hasText: `registry-${tag}` })).toHaveCount(0);
  accept(admin);
  await admin.getByRole("button", { name: `Remove tracker-${tag}.example.com` }).click();
  await expect(trackers.filter({ hasText: `tracker-${tag}` })).toHaveCount(0);

  await nav.getByRole("link", { name: "Backups" }).click();
  await admin.getByRole("button", { name: "Take a backup" }).click();
  // pg_dump of every service's schema: longer than an assertion's default wait on a shared machine.
  await expect(admin.getByRole("status")).toHaveAttribute("data-state", "succeeded", { timeout: 60_000 });
  const name = (await admin.getByRole("status").textContent())!.match(/manual-\d{8}T\d{9}Z/)![0];
  const row = admin.getByRole("table", { name: "Backups" }).locator("tbody tr").filter({ hasText: name });
  await expect(row).toContainText("manual");
  const saved = admin.waitForEvent("download");
  await row.getByRole("button", { name: `Download ${name}` }).click();
  expect((await saved).suggestedFilename()).toMatch(new RegExp(`^${name}.*\\.tar\\.gz$`));

  // Up to the confirmation only: a restore would replace the data every other spec reads.
  const restore = admin.getByRole("form", { name: "Restore a backup" });
  await restore.getByLabel(/Archive/).setInputFiles({
    name: `${name}.tar.gz`,
    mimeType: "application/gzip",
    buffer: Buffer.from("not read: the API refuses the confirmation first"),
  });
  await restore.getByLabel(/Type yes/).fill("restore");
  await restore.getByRole("button", { name: "Restore" }).click();
  await expect(restore.getByRole("alert")).toContainText("X-Confirm-Restore: yes");
  await screenshot(admin, "admin-backups");
  await expectAccessible(admin);
});

test("a team_admin gets the not-found pages, the signed SBOM and a second factor", async ({ browser }) => {
  const who = people();
  const page = await signedIn(browser, teamAdmin);
  await notFoundOnEveryAdminPage(page, who.teamId);

  await page.goto(`/projects/${project.id}`);
  const signed = page.getByRole("region", { name: "Signed SBOM" });
  const saved = page.waitForEvent("download");
  await signed.getByRole("button", { name: "Download signed SBOM" }).click();
  expect((await saved).suggestedFilename()).toMatch(/^sbom-signature-.+\.zip$/);
  const verify = signed.getByLabel("VERIFY.md");
  await expect(verify).toContainText("# Verifying this SBOM");
  await expect(verify).toContainText("cosign verify-blob --key signing.pub");
  await screenshot(page, "signed-sbom");
  await expectAccessible(page);

  // A factor for the super_admin to clear in the next test.
  await page.getByRole("link", { name: "Second factor" }).click();
  await page.getByRole("button", { name: "Set up a second factor" }).click();
  const totp = (await page.getByTestId("totp-secret").textContent())!;
  const enrol = page.getByRole("form", { name: "Confirm the second factor" });
  await enrol.getByLabel("The code the app shows").fill(generateSync({ secret: totp }));
  await enrol.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByTestId("mfa-state")).toContainText("A second factor is on");
});

test("the super_admin clears the team_admin's second factor, sends a reset and removes them", async ({ browser }) => {
  const who = people();
  const admin = await signedIn(browser, who.admin);
  await admin.goto(`/admin/users?q=${encodeURIComponent(teamAdmin.email)}`);
  const row = admin.getByRole("table", { name: "Users" }).locator("tbody tr");
  await expect(row).toHaveCount(1);
  await expect(row.locator("td").nth(4)).toHaveText("on");
  accept(admin);
  await row.getByRole("button", { name: `Clear second factor of ${teamAdmin.email}` }).click();
  await expect(admin.getByText(`Second factor of ${teamAdmin.email} cleared.`)).toBeVisible();
  await expect(row.locator("td").nth(4)).toHaveText("off");
  await expect(row.getByRole("button", { name: /^Clear second factor/ })).toHaveCount(0);
  accept(admin);
  await row.getByRole("button", { name: `Send password reset to ${teamAdmin.email}` }).click();
  await expect(admin.getByText(`Password-reset link sent to ${teamAdmin.email}.`)).toBeVisible();
  await screenshot(admin, "admin-users-reset");
  await expectAccessible(admin);

  // Their role set through PATCH /v1/admin/users/{id}/role: a team role without a team is the API's 422, shown; with
  // the suite's team it replaces their team_admin membership, read back after a reload.
  await row.getByRole("button", { name: `Set role of ${teamAdmin.email}` }).click();
  const role = admin.getByRole("form", { name: `Role of ${teamAdmin.email}` });
  await role.getByLabel("Role").selectOption("developer");
  await role.getByRole("button", { name: "Set role" }).click();
  await expect(role.getByRole("alert")).toContainText(/team_id/);
  await role.getByLabel("Team").selectOption(who.teamId);
  await role.getByRole("button", { name: "Set role" }).click();
  await expect(role.getByRole("status")).toHaveText(
    `${teamAdmin.email}: not super_admin; teams ${who.teamName} (developer).`,
  );
  await screenshot(admin, "admin-user-role");
  await expectAccessible(admin);
  await admin.reload();
  await expect(row.locator("td").nth(2)).toHaveText(`${who.teamName} (developer)`);
  await expect(row.locator("td").nth(6)).toHaveText("no");

  await admin.goto(`/admin/teams/${who.teamId}`);
  accept(admin);
  await admin.getByRole("button", { name: `Remove ${teamAdmin.email}` }).click();
  await expect(admin.getByLabel(`Role of ${teamAdmin.email}`)).toHaveCount(0);
});

test("the viewer gets the not-found pages and no signed SBOM", async ({ browser }) => {
  const who = people();
  const page = await signedIn(browser, who.viewer);
  await notFoundOnEveryAdminPage(page, who.teamId);
  await page.goto(`/projects/${project.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: "Download signed SBOM" })).toHaveCount(0);
});
