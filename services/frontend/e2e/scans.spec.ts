// Source and container scans started from the project's page and followed live on the scan's page: a source archive
// (dvna's package.json, tarred and gzipped), an image archive (`docker save` of a one-layer image holding an installed
// npm package), and a git ref on a project without git_url, which fails and says why.
import { execFileSync } from "node:child_process";
import { expect, test, type Page } from "@playwright/test";
import { dockerSaveOf, tarOf } from "@sca/testkit";
import { expectAccessible, screenshot, signedIn } from "./pages.ts";
import { people } from "./people.ts";

const MANIFESTS = new URL("../../../../shared/data/manifests/", import.meta.url).pathname;
let projectId: string;

test.beforeAll(async ({ request }) => {
  const who = people();
  const created = await request.post(`${process.env.UI_API_URL}/v1/projects`, {
    headers: { authorization: `Bearer ${who.admin.token}` },
    data: { name: `Scans ${Date.now()}`, slug: `scans-${Date.now()}`, team_id: who.teamId },
  });
  expect(created.status()).toBe(201);
  projectId = ((await created.json()) as { id: string }).id;
});

async function startFrom(page: Page, form: string, fill: (form: ReturnType<Page["getByRole"]>) => Promise<void>) {
  await page.goto(`/projects/${projectId}`);
  const scan = page.getByRole("form", { name: form });
  await fill(scan);
  await scan.getByRole("button", { name: /^Scan / }).click();
  await expect(page).toHaveURL(/\/scans\/[0-9a-f-]{36}$/);
}

test("a developer scans a source archive and an image archive, and sees a git ref fail", async ({ browser }) => {
  const page = await signedIn(browser, people().developer);
  await page.goto(`/projects/${projectId}`);
  await expect(page.getByRole("form", { name: "Scan the source" })).toBeVisible();
  await screenshot(page, "project-scan-forms");
  await expectAccessible(page);

  const source = execFileSync("tar", ["-czf", "-", "-C", MANIFESTS, "dvna"]);
  await startFrom(page, "Scan the source", (form) =>
    form
      .getByLabel(/source archive/)
      .setInputFiles({ name: "dvna.tar.gz", mimeType: "application/gzip", buffer: source }),
  );
  await expect(page.getByTestId("scan-status")).toHaveText("succeeded", { timeout: 150_000 });
  await expect(page.getByRole("progressbar", { name: "Scan progress" })).toHaveAttribute("value", "100");

  const layer = await tarOf([
    { name: "app/package.json", data: JSON.stringify({ name: "ui-app", version: "1.0.0", private: true }) },
    { name: "app/node_modules/left-pad/package.json", data: JSON.stringify({ name: "left-pad", version: "1.3.0" }) },
  ]);
  const image = await dockerSaveOf({ layers: [layer] }, "team/ui-app:1.0");
  await startFrom(page, "Scan a container image", (form) =>
    form
      .getByLabel(/image archive/)
      .setInputFiles({ name: "ui-app.tar", mimeType: "application/x-tar", buffer: image }),
  );
  await expect(page.getByTestId("scan-status")).toHaveText("succeeded", { timeout: 150_000 });
  await screenshot(page, "scan-container");

  // The project has no git_url: the scan starts, then fails with the runner's sentence.
  await startFrom(page, "Scan the source", (form) => form.getByLabel(/Git ref/).fill("main"));
  await expect(page.getByTestId("scan-status")).toHaveText("failed", { timeout: 150_000 });
  await expect(page.getByRole("main")).toContainText("git_url");

  await page.goto(`/projects/${projectId}/scans?kind=source`);
  await expect(page.getByRole("table", { name: "Scans" }).locator("tbody tr")).toHaveCount(2);
});
