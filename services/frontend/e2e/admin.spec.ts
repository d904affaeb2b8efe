// The super_admin's pages, each opened by each role, and the crash report: the health panel (the notifier's
// /admin/health link) for the super_admin, the API's not-found page for the others; a page that throws on an answer it
// cannot read shows the crash page and files the spec's crash report, which the super_admin then reads.
import { expect, test } from "@playwright/test";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";

const ADMIN_PAGES = ["/admin/health", "/admin/users", "/admin/scans", "/admin/audit"];

test("the super_admin reads the health panel; the others get the API's not-found page", async ({ browser }) => {
  const who = people();
  const admin = await signedIn(browser, who.admin);
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Health" }).click();
  await expect(admin).toHaveURL(/\/admin\/health$/);
  const parts = admin.getByRole("table", { name: "Health" });
  await expect(parts.locator("tbody tr").filter({ hasText: "postgresql" })).toContainText("up");
  await expect(admin.getByRole("table", { name: "Disk" }).locator("tbody tr").first()).toBeVisible();
  await expect(admin.getByRole("table", { name: "Feeds" }).locator("tbody tr")).toHaveCount(2);
  await screenshot(admin, "admin-health");
  await expectAccessible(admin);

  for (const person of [who.developer, who.viewer]) {
    const page = await signedIn(browser, person);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Health" })).toHaveCount(0);
    for (const path of ADMIN_PAGES) {
      await page.goto(path);
      await expect(page.getByRole("alert").locator("strong")).toHaveText(/^Not found$/i);
      await expect(page.getByRole("alert")).toContainText("Request id:");
    }
  }
});

test("the super_admin deactivates and activates a person and finds it in the audit", async ({ browser, request }) => {
  const who = people();
  // A person of this test's own: deactivating one of the suite's people would end the sessions other specs keep.
  const email = `leaver-${Date.now()}@ui.example.com`;
  const registered = await request.post(`${process.env.UI_API_URL}/v1/auth/register`, {
    data: { email, password: `Ui-${Date.now()}-leaver-Pass`, full_name: "Leaver" },
  });
  expect(registered.status()).toBe(201);
  const userId = ((await registered.json()) as { id: string }).id;

  const admin = await signedIn(browser, who.admin);
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
  await admin.getByLabel("E-mail or name").fill(email);
  await admin.getByRole("button", { name: "Filter", exact: true }).click();
  const row = admin.getByRole("table", { name: "Users" }).locator("tbody tr");
  await expect(row).toHaveCount(1);
  await expect(row.locator("td").nth(3)).toHaveText("yes");
  await row.getByRole("button", { name: `Deactivate ${email}` }).click();
  await expect(row.locator("td").nth(3)).toHaveText("no");
  await row.getByRole("button", { name: `Activate ${email}` }).click();
  await expect(row.locator("td").nth(3)).toHaveText("yes");
  await row.getByRole("button", { name: `Unlock sign-in of ${email}` }).click();
  await expect(admin.getByRole("status")).toHaveText("Sign-in unlocked.");
  await screenshot(admin, "admin-users");
  await expectAccessible(admin);

  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit" }).click();
  await admin.getByLabel("Text").fill(userId);
  await admin.getByRole("button", { name: "Filter", exact: true }).click();
  const entries = admin.getByRole("table", { name: "Audit entries" }).locator("tbody tr");
  await expect(entries.first()).toContainText(userId);
  await expect(entries.filter({ hasText: who.admin.email }).first()).toBeVisible();
  await screenshot(admin, "admin-audit");
  await expectAccessible(admin);
});

interface CrashReport {
  url: string;
  message: string;
  component_stack: string | null;
  user_email: string | null;
}

test("a page that throws files a crash report and offers a reload", async ({ browser, request }) => {
  const who = people();
  const page = await signedIn(browser, who.developer);
  const marker = `crash-${Date.now()}`;
  // An answer the page cannot read (no items): rendering it throws, as a bug would.
  const broken = (url: URL) => url.pathname === "/api/v1/projects" && url.searchParams.get("q") === marker;
  await page.route(broken, (route) => route.fulfill({ status: 200, contentType: "application/json", body: "{}" }));
  await page.goto(`/projects?q=${marker}`);
  await expect(page.getByRole("heading", { name: "Something went wrong" })).toBeVisible();
  await expect(page.getByText("The error has been reported.")).toBeVisible();
  await screenshot(page, "crash");
  await expectAccessible(page);

  const reports = async () => {
    const res = await request.get(`${process.env.UI_API_URL}/v1/admin/crash-reports`, {
      headers: { authorization: `Bearer ${who.admin.token}` },
    });
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { items: CrashReport[] };
    return body.items.filter((r) => r.url.includes(marker));
  };
  await expect.poll(async () => (await reports()).length).toBe(1);
  const [report] = await reports();
  expect(report!.user_email).toBe(who.developer.email);
  expect(report!.message).toMatch(/map|undefined/);
  // React's component stack (the built app's names are minified, so only its shape is known).
  expect(report!.component_stack).toMatch(/\bat \S+/);

  await page.unroute(broken);
  await page.getByRole("button", { name: "Reload the page" }).click();
  await expect(page.getByRole("heading", { name: "Projects" })).toBeVisible();
});
