// The `sca` command tree (commander) and its one run: global options become the session, each command's failure
// becomes one line on stderr and exit code 2 (exit-codes.ts), a usage error too.
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { completionCommand } from "./commands/completion.ts";
import { gateCommand } from "./commands/gate.ts";
import { loginCommands } from "./commands/login.ts";
import { readCommands } from "./commands/reads.ts";
import { scanCommands } from "./commands/scan.ts";
import { verifyCommand } from "./commands/verify.ts";
import { CliError, EXIT } from "./exit-codes.ts";
import { connectAsStored, type Session } from "./session.ts";
import { Terminal } from "./terminal.ts";

const VERSION =
  (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string }).version ??
  "0.0.0";

export interface CliIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

interface GlobalOptions {
  api?: string;
  quiet?: boolean;
  verbose?: boolean;
}

export function buildProgram(io: CliIo): { program: Command; session: Session } {
  const program = new Command("sca")
    .description("The SCA portal from a terminal or CI: scan, follow, gate, read, export and verify (docs/ci.md)")
    .version(VERSION)
    .option("--api <url>", "the portal's API (https://portal.example.com/api); else SCA_API or the stored one")
    .option("-q, --quiet", "only results and errors")
    .option("-v, --verbose", "also each request (method, path, status, time, request id)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  const globals = () => program.opts<GlobalOptions>();
  let terminal: Terminal | null = null;
  const session: Session = {
    env: io.env,
    stdin: io.stdin,
    stderr: io.stderr,
    version: VERSION,
    get apiOption() {
      return globals().api;
    },
    get terminal() {
      terminal ??= new Terminal(io, { quiet: globals().quiet === true, verbose: globals().verbose === true });
      return terminal;
    },
    connect: () => connectAsStored(session),
  };
  loginCommands(program, session);
  scanCommands(program, session);
  gateCommand(program, session);
  readCommands(program, session);
  verifyCommand(program, session);
  completionCommand(program, session);
  for (const cmd of allCommands(program)) cmd.exitOverride();
  return { program, session };
}

function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Runs `sca` with argv (without node and the script) and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  process.exitCode = EXIT.ok;
  const { program, session } = buildProgram(io);
  const started = performance.now();
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with code 0; a usage error has already been printed by commander.
      return err.exitCode === 0 ? EXIT.ok : EXIT.noAnswer;
    }
    // A reader that stopped early (`sca export sbom ... | head`): nothing to report.
    if ((err as NodeJS.ErrnoException).code === "EPIPE") return Number(process.exitCode ?? EXIT.ok);
    if (err instanceof CliError) {
      session.terminal.error(err.message);
      return err.exitCode;
    }
    session.terminal.error(err instanceof Error ? err.message : String(err));
    return EXIT.noAnswer;
  } finally {
    reportTiming(session, started);
  }
  return Number(process.exitCode ?? EXIT.ok);
}

/** --verbose: where the time went, the portal's share against the CLI's own (the benchmark reads this line). */
function reportTiming(session: Session, started: number): void {
  const portal = session.lastPortal;
  if (!portal) return;
  const total = performance.now() - started;
  // The process's CPU since it started (Node's start-up included): what the CLI costs on a quiet machine.
  const cpu = process.cpuUsage();
  session.terminal.debug(
    `timing: ${total.toFixed(0)} ms in the command, ${portal.waitedMs.toFixed(0)} ms waiting on the portal, ` +
      `${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`,
  );
}
