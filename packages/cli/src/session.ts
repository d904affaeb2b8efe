// What every command gets from the global options: the terminal, the environment, and the portal to call
// (credentials resolved only when a command needs them, so `sca completion` works signed out).
import { resolveCredentials } from "./credentials.ts";
import { connectPortal, type Portal } from "./portal.ts";
import type { Terminal } from "./terminal.ts";

export interface Session {
  terminal: Terminal;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
  /** --api, when given. */
  apiOption: string | undefined;
  version: string;
  connect(): Promise<Portal>;
  /** The portal the command connected to, for the --verbose timing line. */
  lastPortal?: Portal;
}

export async function connectAsStored(session: Session): Promise<Portal> {
  const { api, bearer } = await resolveCredentials(session.env, session.apiOption);
  session.lastPortal = connectPortal(api, bearer, session.terminal);
  return session.lastPortal;
}
