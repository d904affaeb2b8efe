// Run by `./dev up` after the migrations: when no active super_admin exists, creates one from ADMIN_EMAIL and
// ADMIN_PASSWORD (or a generated strong password) and prints the credentials once, to this console only
// (stdout, never a log). Running it again changes nothing.
import { randomBytes } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { keys, loadConfigOrExit, parse } from "@sca/config";
import { openDatabase } from "@sca/db";
import { OutboxMessage } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { isEmailAddress, normalizeEmail } from "../domain/email-address.ts";
import { hashPassword } from "../domain/password-hash.ts";
import { newPasswordViolation } from "../domain/password-policy.ts";
import { emitAudit } from "../events/account-events.ts";
import { accountByEmail, anySuperAdmin, insertAccount, lockBootstrap, promoteToSuperAdmin } from "../store/accounts.ts";
import { entities } from "../store/entities.ts";
import { migrations } from "../store/migrations/index.ts";

export type BootstrapOutcome =
  | { kind: "exists" }
  | { kind: "created"; email: string; password: string; generated: boolean }
  | { kind: "promoted"; email: string };

const bootstrapActor = { userId: "", email: "", ip: "", userAgent: "bootstrap-admin" };

export async function ensureSuperAdmin(
  orm: MikroORM,
  wanted: { email: string; password: string | undefined },
): Promise<BootstrapOutcome> {
  const email = normalizeEmail(wanted.email);
  if (!isEmailAddress(email)) throw new Error("ADMIN_EMAIL is not an e-mail address");
  const why = wanted.password === undefined ? null : newPasswordViolation(wanted.password);
  if (why) throw new Error(`ADMIN_PASSWORD ${why}`);
  const password = wanted.password ?? randomBytes(18).toString("base64url"); // 144 bits
  const passwordHash = await hashPassword(password);
  return orm.em.fork().transactional(async (em): Promise<BootstrapOutcome> => {
    await lockBootstrap(em);
    if (await anySuperAdmin(em)) return { kind: "exists" };
    const existing = await accountByEmail(em, email);
    if (existing) {
      // The address is someone's account already: promote it and keep its password.
      await promoteToSuperAdmin(em, existing.id);
      emitAudit(em, {
        action: "user.bootstrap_promoted",
        actor: bootstrapActor,
        targetId: existing.id,
        outcome: "success",
        at: new Date(),
      });
      return { kind: "promoted", email };
    }
    const created = (await insertAccount(em, { email, fullName: "Administrator", passwordHash, isSuperuser: true }))!;
    emitAudit(em, {
      action: "user.bootstrap_created",
      actor: bootstrapActor,
      targetId: created.id,
      outcome: "success",
      at: new Date(),
    });
    return { kind: "created", email, password, generated: wanted.password === undefined };
  });
}

if (import.meta.main) {
  const config = loadConfigOrExit({
    DATABASE_URL: keys.DATABASE_URL,
    ADMIN_EMAIL: { parse: parse.text("admin@sca.local") },
    ADMIN_PASSWORD: { parse: parse.optionalText(), secret: true },
  });
  const orm = await openDatabase({
    url: config.DATABASE_URL,
    schema: "identity",
    entities: [...entities, OutboxMessage],
    migrations,
    logger: createLogger("identity-bootstrap", "ERROR"),
  });
  try {
    const outcome = await ensureSuperAdmin(orm, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD });
    if (outcome.kind === "created") {
      process.stdout.write(
        `\nsuper_admin created\n  e-mail:   ${outcome.email}\n  password: ${outcome.generated ? outcome.password : "(ADMIN_PASSWORD)"}\n` +
          (outcome.generated ? "  This password is shown once: keep it somewhere safe.\n\n" : "\n"),
      );
    } else if (outcome.kind === "promoted") {
      process.stdout.write(
        `\nsuper_admin: the existing account ${outcome.email} was promoted; its password is unchanged.\n\n`,
      );
    } else {
      process.stdout.write(
        "A super_admin exists already: sign in with its e-mail and password (its password was printed when it was created).\n",
      );
    }
  } catch (err) {
    process.stderr.write(`bootstrap-admin: ${(err as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await orm.close();
  }
}
