// Where the CLI writes: results on stdout (what a pipeline captures), everything else on stderr, so
// `sca gate --format sarif > gate.sarif` stays a clean document. --quiet leaves only results and errors, --verbose
// adds each request. Colour only on a terminal and never with NO_COLOR set (https://no-color.org).
import { styleText } from "node:util";
import cliProgress from "cli-progress";

export type Style = "red" | "green" | "yellow" | "dim" | "bold";

export interface TerminalStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

export interface Progress {
  /** Where the work stands: 0..total (bytes, percent), with what it is doing now. */
  update(value: number, step?: string): void;
  stop(): void;
}

export class Terminal {
  readonly quiet: boolean;
  readonly verbose: boolean;
  private readonly color: boolean;
  private readonly interactive: boolean;
  private readonly streams: TerminalStreams;

  constructor(streams: TerminalStreams, opts: { quiet: boolean; verbose: boolean }) {
    this.streams = streams;
    this.quiet = opts.quiet;
    this.verbose = opts.verbose && !opts.quiet;
    const noColor = (streams.env.NO_COLOR ?? "") !== "";
    this.interactive = streams.stderr.isTTY === true;
    this.color = !noColor && streams.stdout.isTTY === true;
  }

  paint(style: Style, text: string): string {
    return this.color ? styleText(style, text, { validateStream: false }) : text;
  }

  /** The answer: on stdout, even with --quiet. */
  result(text: string): void {
    this.streams.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  info(text: string): void {
    if (!this.quiet) this.streams.stderr.write(`${text}\n`);
  }

  debug(text: string): void {
    if (this.verbose) this.streams.stderr.write(`${this.paint("dim", text)}\n`);
  }

  error(text: string): void {
    this.streams.stderr.write(`${this.paint("red", "sca: error:")} ${text}\n`);
  }

  /**
   * A bar on a terminal; in CI (stderr not a terminal) a plain line whenever the step changes or another tenth of
   * the total is done, so a log stays short and readable.
   */
  progress(label: string, total: number, unit: "bytes" | "percent"): Progress {
    if (this.quiet) return { update: () => {}, stop: () => {} };
    const shown = (v: number) => (unit === "bytes" ? formatBytes(v) : `${Math.round(v)}%`);
    if (this.interactive) {
      const bar = new cliProgress.SingleBar(
        {
          stream: this.streams.stderr,
          format: `${label} [{bar}] {shown} {step}`,
          barCompleteChar: "#",
          barIncompleteChar: "-",
          hideCursor: true,
          clearOnComplete: false,
          noTTYOutput: false,
        },
        cliProgress.Presets.legacy,
      );
      bar.start(Math.max(total, 1), 0, { shown: shown(0), step: "" });
      return {
        update: (value, step) =>
          bar.update(Math.min(value, Math.max(total, 1)), { shown: shown(value), step: step ?? "" }),
        stop: () => bar.stop(),
      };
    }
    let lastTenth = -1;
    let lastStep: string | undefined;
    let last: number | null = null;
    let written: number | null = null;
    const write = (value: number, step: string | undefined) => {
      written = value;
      this.streams.stderr.write(`${label}: ${shown(value)}${step ? ` ${step}` : ""}\n`);
    };
    return {
      update: (value, step) => {
        last = value;
        const tenth = total > 0 ? Math.floor((value / total) * 10) : 0;
        if (tenth === lastTenth && step === lastStep) return;
        lastTenth = tenth;
        lastStep = step;
        write(value, step);
      },
      // Where it ended, when no line said so yet (a size not known ahead: a directory zipped on the way).
      stop: () => {
        if (last !== null && last !== written) write(last, lastStep);
      },
    };
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
