// What the UI specs share: signing in through the page, the accessibility check, and the screenshots of the main pages
// (.data/ui/screenshots/, linked from docs/ui.md).
import AxeBuilder from "@axe-core/playwright";
import { expect, type Browser, type Page } from "@playwright/test";
import type { Person } from "./people.ts";

export const SCREENSHOTS = new URL("../../../.data/ui/screenshots/", import.meta.url).pathname;

export async function signIn(page: Page, person: Person): Promise<void> {
  await page.goto("/login");
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("E-mail").fill(person.email);
  await form.getByLabel("Password").fill(person.password);
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/projects/);
}

const sessions = new Map<string, Page>();

/**
 * A page signed in as `person`, opened at /projects: one per person for the whole worker (the specs run in one), since
 * the spec allows 5 sign-ins a minute per address and every spec signs in from 127.0.0.1. The session stays in the
 * page's memory, so the page is kept open rather than its cookies saved (the refresh cookie is single-use).
 */
export async function signedIn(browser: Browser, person: Person): Promise<Page> {
  let page = sessions.get(person.email);
  if (!page) {
    const context = await browser.newContext({ baseURL: process.env.UI_BASE_URL });
    page = await context.newPage();
    await signIn(page, person);
    sessions.set(person.email, page);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/projects");
  // A navigation that cut a refresh short leaves a used refresh cookie behind, and the session ends: sign in again.
  const projects = page.getByRole("heading", { name: "Projects" });
  const form = page.getByRole("form", { name: "Sign in" });
  await expect(projects.or(form)).toBeVisible();
  if (await form.isVisible()) await signIn(page, person);
  return page;
}

/** No serious or critical axe violation on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(grave.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
