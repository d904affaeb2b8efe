// sca login / logout / whoami. A key is checked against the portal before it is stored; a password sign-in
// completes the second factor when the account has one, and stores the access token (not the password) until it
// expires. The refresh cookie is not kept: sign in again when the token expires (docs/ci.md).
import type { Command } from "commander";
import { describeBearer, forgetCredentials, readCredentials, writeCredentials, type Bearer } from "../credentials.ts";
import { CliError } from "../exit-codes.ts";
import { answer, connectPortal, type Portal } from "../portal.ts";
import { Prompt } from "../prompt.ts";
import type { Session } from "../session.ts";

interface LoginOptions {
  email?: string;
}

export function loginCommands(program: Command, session: Session): void {
  program
    .command("login")
    .description(
      "sign in: an API key (asked for, or the first line of stdin), or with --email a password and second factor",
    )
    .option("--email <address>", "sign in as this person with a password (and second-factor code if enrolled)")
    .action(async (opts: LoginOptions) => {
      const api = session.apiOption ?? session.env.SCA_API ?? (await readCredentials(session.env))?.api;
      if (!api) throw new CliError("sca login needs --api URL (the portal's /api) or SCA_API");
      const prompt = new Prompt(session.stdin, session.stderr);
      try {
        const bearer = opts.email
          ? await signIn(session, api, opts.email, prompt)
          : await checkKey(session, api, prompt);
        const path = await writeCredentials(session.env, { api, bearer });
        session.terminal.info(`signed in as ${describeBearer(bearer)}; credentials in ${path}`);
      } finally {
        prompt.close();
      }
    });

  program
    .command("logout")
    .description("forget the stored credentials")
    .action(async () => {
      await forgetCredentials(session.env);
      session.terminal.info("signed out");
    });

  program
    .command("whoami")
    .description("who the portal sees: the person and their teams, or the API key")
    .action(async () => {
      const portal = await session.connect();
      session.terminal.result(await whoami(portal));
    });
}

async function checkKey(session: Session, api: string, prompt: Prompt): Promise<Bearer> {
  const secret = session.env.SCA_API_KEY || (await prompt.secret("API key: "));
  if (!secret.startsWith("tos_")) throw new CliError("that is not an API key of the portal (they start with tos_)");
  const bearer: Bearer = { kind: "api_key", secret };
  // Any member may list projects, and a key of any scope is a member of what it reaches: the cheapest proof.
  await answer(
    connectPortal(api, bearer, session.terminal).api.GET("/v1/projects", { params: { query: { size: 1 } } }),
  );
  return bearer;
}

async function signIn(session: Session, api: string, email: string, prompt: Prompt): Promise<Bearer> {
  const portal = connectPortal(api, null, session.terminal);
  const password = await prompt.secret(`password of ${email}: `);
  const first = await answer(portal.api.POST("/v1/auth/login", { body: { email, password } }));
  let token = first;
  if ("mfa_required" in first) {
    const code = await prompt.secret("second-factor code: ");
    token = await answer(portal.api.POST("/v1/auth/login/mfa", { body: { mfa_token: first.mfa_token, code } }));
  }
  if (!("access_token" in token)) throw new CliError("the portal asked for a second factor twice");
  return {
    kind: "access_token",
    secret: token.access_token,
    email,
    expiresAt: new Date(Date.now() + token.expires_in * 1000).toISOString(),
  };
}

async function whoami(portal: Portal): Promise<string> {
  if (portal.bearer?.kind !== "access_token") {
    const page = await answer(portal.api.GET("/v1/projects", { params: { query: { size: 1 } } }));
    return `${describeBearer(portal.bearer!)} at ${portal.apiUrl}: ${page.total} project(s) visible`;
  }
  const me = await answer(portal.api.GET("/v1/auth/me"));
  const lines = [`${me.email}${me.full_name ? ` (${me.full_name})` : ""} at ${portal.apiUrl}`];
  if (me.is_superuser) lines.push("  super_admin");
  for (const m of me.memberships) lines.push(`  ${m.role} of ${m.team_slug} (${m.team_name})`);
  lines.push(`  signed in until ${portal.bearer.expiresAt}`);
  return lines.join("\n");
}
