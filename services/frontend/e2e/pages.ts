// What the UI specs share: signing in through the page, the accessibility check, and the screenshots of the main pages
// (.data/ui/screenshots/, linked from docs/ui.md).
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
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

/** No serious or critical axe violation on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(grave.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
