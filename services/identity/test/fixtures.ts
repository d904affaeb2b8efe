// Identity's fixtures for the tests of other services (see @sca/testkit fixturesOf) and its own harness.
import { randomUUID } from "node:crypto";
import { TEST_SECRET, type ServiceFixtures } from "@sca/testkit";
import { issueAccessToken } from "../src/domain/access-token.ts";
import { generateApiKey } from "../src/domain/api-key-format.ts";
import { hashPassword } from "../src/domain/password-hash.ts";
import { insertAccount } from "../src/store/accounts.ts";
import { User } from "../src/store/entities/user.ts";

// A test's people mostly share one password: its scrypt hash (about 70 ms of CPU at the production cost) is computed
// once per password and file, not once per person. Only the hash's salt is shared, which no test reads.
const hashes = new Map<string, Promise<string>>();
function passwordHashOf(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (!hash) hashes.set(password, (hash = hashPassword(password)));
  return hash;
}

export const fixtures: ServiceFixtures["identity"] = {
  async user(orm, u = {}) {
    const id = randomUUID();
    // The address follows the id, which tests that compare member lists rely on.
    await orm.em.fork().insert(User, {
      id,
      email: u.email ?? `${id}@example.com`,
      fullName: u.fullName ?? "Test Person",
      isSuperuser: u.superAdmin ?? false,
      isActive: u.active ?? true,
    });
    return id;
  },
  async person(orm, p) {
    const account = await insertAccount(orm.em.fork(), {
      email: p.email,
      fullName: "Test Person",
      passwordHash: await passwordHashOf(p.password),
      isSuperuser: p.superAdmin ?? false,
    });
    if (!account) throw new Error(`${p.email} is taken`);
    return account.id;
  },
  async accessToken(userId, o = {}) {
    return (await issueAccessToken(userId, o.secretKey ?? TEST_SECRET, o.lifetimeMinutes ?? 30, o.issuedAt)).token;
  },
  unknownApiKey: () => generateApiKey().raw,
};
