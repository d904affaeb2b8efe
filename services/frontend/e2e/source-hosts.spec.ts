// The source-host pages and the administration's last controls, one walk per role: a team_admin (made here through
// the API) issues a project's webhook secret (shown once, copied, then replaced), is refused a pull request while the
// project is not opted in (409), registers an app (its key and secret never shown back), links an installation to the
// project and revokes the app; the developer previews the npm remediation of a scanned project (the API's default
// manifest, then one typed) with no pull-request or webhook control (the webhook page is the API's 403); the viewer
// reads the pull requests and the apps with no form; the super_admin renames a team, is refused deleting it while it
// has a subteam (409), deletes both, and deletes a manual backup.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people, type Person } from "./people.ts";
import { projectScanned, type ScannedProject } from "./scanned-project.ts";

test.describe.configure({ mode: "serial" });

const tag = randomBytes(3).toString("hex");
let teamAdmin: Person;
let bare: { id: string; name: string };
let scanned: ScannedProject;
let parentTeam: { id: string; name: string };
let childTeam: { id: string; name: string };

async function post(request: APIRequestContext, path: string, data?: unknown): Promise<Record<string, unknown>> {
  const res = await request.post(`${process.env.UI_API_URL}${path}`, {
    headers: { authorization: `Bearer ${people().admin.token}` },
    ...(data === undefined ? {} : { data }),
  });
  expect(res.ok(), `${path}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as Record<string, unknown>;
}

test.beforeAll(async ({ request }) => {
  const who = people();
  teamAdmin = { email: `scm-admin-${tag}@ui.example.com`, password: `Ui-${randomBytes(12).toString("base64url")}` };
  const user = await post(request, "/v1/auth/register", { ...teamAdmin, full_name: "Source host admin" });
  await post(request, `/v1/admin/teams/${who.teamId}/members`, { user_id: user.id, role: "team_admin" });
  const name = `Opt-in ${tag}`;
  const project = await post(request, "/v1/projects", { name, slug: `opt-in-${tag}`, team_id: who.teamId });
  bare = { id: project.id as string, name };
  const parent = await post(request, "/v1/admin/teams", { name: `Doomed ${tag}`, slug: `doomed-${tag}` });
  const child = await post(request, "/v1/admin/teams", {
    name: `Doomed child ${tag}`,
    slug: `doomed-child-${tag}`,
    parent_group_id: parent.id,
  });
  parentTeam = { id: parent.id as string, name: parent.name as string };
  childTeam = { id: child.id as string, name: child.name as string };
  // An npm project's SBOM (CERN's editor): its vulnerable packages are what the dry-run bumps.
  scanned = await projectScanned(request, "Remediation", [["cern-lhc-vdm-editor-e564943.cdx-1.2.json", "1.0"]]);
});

const accept = (page: Page) => page.once("dialog", (dialog) => void dialog.accept());

test("a team_admin issues the webhook secret, registers and links an app, and is refused a pull request", async ({
  browser,
}) => {
  const page = await signedIn(browser, teamAdmin);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(`/projects/${bare.id}`);
  await page.getByRole("link", { name: "Repository webhook" }).click();
  const status = page.getByTestId("webhook-status");
  await expect(status).toContainText("Secretnone");
  for (const provider of ["scm_a", "scm_b"])
    await expect(page.getByTestId(`payload-url-${provider}`)).toHaveText(
      `${process.env.UI_BASE_URL}/api/v1/webhooks/${provider}`,
    );
  const form = page.getByRole("form", { name: "Issue a webhook secret" });
  await form.getByRole("button", { name: "Issue secret" }).click();
  const issued = form.getByRole("status");
  await expect(issued).toContainText("A secret for scm_a, shown this once");
  await expect(issued).not.toContainText("replaced");
  const first = (await page.getByTestId("webhook-secret").textContent())!;
  expect(first.length).toBeGreaterThan(20);
  await form.getByRole("button", { name: "Copy secret" }).click();
  await expect(form.getByText("Copied.")).toBeVisible();
  expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(first);
  await expect(status).toContainText("Secretconfigured");
  await expect(status).toContainText("Hostscm_a");
  await screenshot(page, "project-webhook");
  await expectAccessible(page);

  await form.getByLabel("Host").selectOption("scm_b");
  accept(page);
  await form.getByRole("button", { name: "Issue secret" }).click();
  await expect(issued).toContainText("it replaced the earlier secret");
  await expect(status).toContainText("Hostscm_b");
  const second = (await page.getByTestId("webhook-secret").textContent())!;
  expect(second).not.toBe(first);
  await page.reload();
  await expect(status).toContainText("Secretconfigured");
  await expect(page.locator("main")).not.toContainText(second);

  await page.goto(`/projects/${bare.id}/remediation`);
  await page.getByRole("button", { name: "Open pull request" }).click();
  await expect(page.getByRole("alert")).toContainText("linked to no live app installation");

  const pem = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
  const webhookSecret = `never-shown-${tag}`;
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Source hosts" }).click();
  const register = page.getByRole("form", { name: "Register an app" });
  await register.getByLabel("App id").fill(`ui-${tag}`);
  await register.getByLabel("App slug").fill(`portal-${tag}`);
  await register.getByLabel(/Private key/).fill(pem);
  await register.getByLabel(/Webhook secret/).fill(webhookSecret);
  await register.getByRole("button", { name: "Register app" }).click();
  await expect(register.getByRole("status")).toHaveText(`App ui-${tag} registered.`);
  await expect(register.getByLabel(/Private key/)).toHaveValue("");
  const apps = page.getByRole("table", { name: "Apps" }).locator("tbody tr");
  const row = apps.filter({ hasText: `ui-${tag}` });
  await expect(row).toContainText(`portal-${tag}`);
  await expect(row.locator("td").nth(2)).toHaveText("held");
  await expect(row.locator("td").nth(3)).toHaveText("held");
  await expect(page.locator("main")).not.toContainText(webhookSecret);
  await expect(page.locator("main")).not.toContainText("PRIVATE KEY");
  await screenshot(page, "source-host-apps");
  await expectAccessible(page);

  await row.getByRole("link", { name: `ui-${tag}` }).click();
  await expect(page.getByRole("heading", { name: `App ui-${tag}` })).toBeVisible();
  const link = page.getByRole("form", { name: "Link an installation" });
  await link.getByLabel("Installation id").fill("77");
  await link.getByLabel(/Account/).fill("octo");
  await link.getByLabel("Project").selectOption({ label: bare.name });
  await link.getByLabel(/Repository/).fill(`octo/web-${tag}`);
  await link.getByRole("button", { name: "Link installation" }).click();
  await expect(link.getByRole("status")).toHaveText("Installation 77 saved.");
  const installation = page.getByRole("table", { name: "Installations" }).locator("tbody tr");
  await expect(installation).toHaveCount(1);
  await expect(installation.getByRole("link", { name: bare.name })).toBeVisible();
  await expect(installation).toContainText(`octo/web-${tag}`);
  await screenshot(page, "source-host-app");
  await expectAccessible(page);

  accept(page);
  await page.getByRole("button", { name: "Revoke app" }).click();
  await expect(page.getByRole("button", { name: "Revoke app" })).toHaveCount(0);
  await expect(page.getByTestId("app")).not.toContainText("Revoked—");
  await page.getByRole("link", { name: "Back to the team's apps" }).click();
  await expect(page.getByRole("table", { name: "Apps" })).toBeVisible();
  await expect(apps.filter({ hasText: `ui-${tag}` })).toHaveCount(0);
  await page.getByLabel("Include revoked apps").check();
  await page.getByRole("button", { name: "Show" }).click();
  await expect(apps.filter({ hasText: `ui-${tag}` })).toHaveCount(1);
});

test("the developer previews the npm remediation, with no pull-request or webhook control", async ({ browser }) => {
  const page = await signedIn(browser, people().developer);
  await page.goto(`/projects/${scanned.id}`);
  await expect(page.getByRole("link", { name: "Remediation" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Repository webhook" })).toHaveCount(0);
  await page.getByRole("link", { name: "Remediation" }).click();
  await expect(page.getByRole("button", { name: "Open pull request" })).toHaveCount(0);
  await page.getByRole("button", { name: "Preview" }).click();
  const run = page.getByTestId("dry-run");
  await expect(run).toContainText(`From the scan${scanned.releases[0]!.id}`);
  await expect(run).toContainText("Manifest readnone");
  await expect(run).toContainText("Changedno");
  const recommended = page.getByRole("table", { name: "Recommended versions" }).locator("tbody tr").first();
  const [pkg, current, fix] = await recommended.locator("td").allTextContents();

  await page
    .getByLabel(/^package\.json/)
    .fill(JSON.stringify({ name: "app", dependencies: { [pkg!]: `^${current}` } }));
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(run).toContainText("Manifest readthe manifest typed here");
  await expect(run).toContainText("Changedyes");
  const edit = page.getByRole("table", { name: "Edits" }).locator("tbody tr").filter({ hasText: pkg! });
  await expect(edit.locator("td")).toHaveText([pkg!, "dependencies", `^${current}`, `^${fix}`, "yes"]);
  await expect(page.getByRole("list", { name: "Warnings" })).toContainText("lockfile_regeneration_required");
  await expect(page.getByLabel("Edited package.json")).toContainText(`"${pkg}":"^${fix}"`);
  await expect(page.getByRole("table", { name: "Pull requests" })).toBeVisible();
  await screenshot(page, "project-remediation");
  await expectAccessible(page);

  await page.goto(`/projects/${bare.id}/webhook`);
  await expect(page.getByRole("alert")).toContainText(/team_admin/i);
  await expect(page.getByRole("form", { name: "Issue a webhook secret" })).toHaveCount(0);
});

test("the viewer reads the pull requests and the team's apps, with no form", async ({ browser }) => {
  const page = await signedIn(browser, people().viewer);
  await page.goto(`/projects/${scanned.id}/remediation`);
  await expect(page.getByRole("table", { name: "Pull requests" })).toBeVisible();
  await expect(page.getByRole("form", { name: "npm remediation" })).toHaveCount(0);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Source hosts" }).click();
  await expect(page.getByRole("table", { name: "Apps" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Register an app" })).toHaveCount(0);
});

test("the super_admin renames and deletes teams and deletes a manual backup", async ({ browser, request }) => {
  const admin = await signedIn(browser, people().admin);
  await admin.goto(`/admin/teams/${parentTeam.id}`);
  const rename = admin.getByRole("form", { name: "Rename team" });
  await rename.getByLabel("Name").fill(`Renamed ${tag}`);
  await rename.getByLabel("Description").fill("About to go");
  await rename.getByRole("button", { name: "Save" }).click();
  await expect(admin.getByRole("heading", { name: `Team Renamed ${tag}` })).toBeVisible();
  accept(admin);
  await admin.getByRole("button", { name: `Delete Renamed ${tag}` }).click();
  await expect(admin.getByRole("alert")).toContainText("subteams");
  await screenshot(admin, "admin-team-delete");
  await expectAccessible(admin);

  await admin.goto(`/admin/teams/${childTeam.id}`);
  accept(admin);
  await admin.getByRole("button", { name: `Delete ${childTeam.name}` }).click();
  await expect(admin).toHaveURL(/\/admin\/teams$/);
  await admin.goto(`/admin/teams/${parentTeam.id}`);
  accept(admin);
  await admin.getByRole("button", { name: `Delete Renamed ${tag}` }).click();
  await expect(admin).toHaveURL(/\/admin\/teams$/);
  await admin.goto(`/admin/teams/${parentTeam.id}`);
  await expect(admin.getByRole("alert").locator("strong")).toHaveText(/^Not found$/i);

  const started = await post(request, "/v1/admin/backup");
  let name = "";
  await expect
    .poll(
      async () => {
        const task = (await (
          await request.get(`${process.env.UI_API_URL}/v1/admin/backup-tasks/${String(started.task_id)}`, {
            headers: { authorization: `Bearer ${people().admin.token}` },
          })
        ).json()) as { state: string; backup_name: string | null };
        name = task.backup_name ?? "";
        return task.state;
      },
      // pg_dump of every service's schema: longer than an assertion's default wait on a shared machine.
      { timeout: 60_000 },
    )
    .toBe("succeeded");
  await admin.goto("/admin/backups");
  const row = admin.getByRole("table", { name: "Backups" }).locator("tbody tr").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  accept(admin);
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  await expect(row).toHaveCount(0);
});
