// Second-factor enrolment and removal through the page, by a person of its own (the suite's people must keep signing
// in with a password alone): enrol with a code otplib computes from the secret the page shows, sign in again with a
// recovery code, remove the factor with another recovery code. Recovery codes, not a second TOTP code: the API takes
// each time step once, and waiting for the next step would be a sleep.
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { generateSync } from "otplib";
import { expectAccessible, screenshot, signIn } from "./pages.ts";

test("a person turns the second factor on, signs in with it, and turns it off", async ({ page, request }) => {
  const person = {
    email: `mfa-${randomBytes(4).toString("hex")}@ui.example.com`,
    password: `Ui-${randomBytes(12).toString("base64url")}`,
  };
  const registered = await request.post(`${process.env.UI_API_URL}/v1/auth/register`, {
    data: { ...person, full_name: "Second factor" },
  });
  expect(registered.status()).toBe(201);

  await signIn(page, person);
  await page.getByRole("link", { name: "Second factor" }).click();
  await expect(page.getByTestId("mfa-state")).toContainText("No second factor");
  await page.getByRole("button", { name: "Set up a second factor" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!;
  const enrol = page.getByRole("form", { name: "Confirm the second factor" });
  await enrol.getByLabel("The code the app shows").fill("000000");
  await enrol.getByRole("button", { name: "Turn on" }).click();
  await expect(enrol.getByRole("alert")).toBeVisible();
  await expectAccessible(page);
  await enrol.getByLabel("The code the app shows").fill(generateSync({ secret }));
  await enrol.getByRole("button", { name: "Turn on" }).click();
  const codes = page.getByRole("region", { name: "Recovery codes" }).getByRole("listitem");
  await expect(codes).toHaveCount(10);
  const recovery = await codes.allTextContents();
  await expect(page.getByTestId("mfa-state")).toContainText("A second factor is on");
  await screenshot(page, "second-factor");
  await expectAccessible(page);

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.goto("/login");
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("E-mail").fill(person.email);
  await form.getByLabel("Password").fill(person.password);
  await form.getByRole("button", { name: "Sign in" }).click();
  const second = page.getByRole("form", { name: "Second factor" });
  await second.getByLabel("Authentication code or recovery code").fill(recovery[0]!);
  await second.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/projects/);

  await page.getByRole("link", { name: "Second factor" }).click();
  const remove = page.getByRole("form", { name: "Remove the second factor" });
  await remove.getByLabel("A code from the app, or a recovery code").fill(recovery[1]!);
  await remove.getByRole("button", { name: "Remove" }).click();
  await expect(page.getByTestId("mfa-state")).toContainText("No second factor");
});
