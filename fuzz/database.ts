// A database of the gate's own, created fresh for a run and dropped after it, on the local PostgreSQL.
import { randomBytes } from "node:crypto";
import { openDatabase } from "@sca/db";

const ADMIN_URL =
  process.env.FUZZ_ADMIN_DATABASE_URL ?? `postgresql://sca:sca@127.0.0.1:${process.env.PG_PORT ?? "55432"}/sca`;

async function execute(sql: string): Promise<void> {
  const orm = await openDatabase({ url: ADMIN_URL, schema: "public", entities: [], migrations: [], poolMax: 1 });
  try {
    await orm.em.getConnection().execute(sql);
  } finally {
    await orm.close();
  }
}

export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sca_fuzz_${randomBytes(4).toString("hex")}`;
  await execute(`create database ${name} owner sca`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => execute(`drop database if exists ${name} with (force)`) };
}
