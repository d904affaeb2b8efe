// The exit codes CI reads (docs/ci.md): 1 means only "the answer is no" (the gate failed, or a signed bundle did not
// verify), so a pipeline can tell a verdict from a broken run; everything that kept the command from an answer
// (portal unreachable, a refused request, a failed scan, a usage error) is 2, as the README's curl recipe has it.
export const EXIT = { ok: 0, failed: 1, noAnswer: 2 } as const;

/** A failure the CLI reports as one line on stderr and turns into an exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.noAnswer) {
    super(message);
    this.exitCode = exitCode;
  }
}
