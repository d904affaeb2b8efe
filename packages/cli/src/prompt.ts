// Questions `sca login` asks: on a terminal the answer is typed without echo (a secret never shows); otherwise each
// answer is the next line of stdin, so CI can pipe `printf '%s\n' "$PASSWORD" "$CODE" | sca login --email ...`.
import { createInterface, type Interface } from "node:readline";
import { CliError } from "./exit-codes.ts";

export class Prompt {
  private readonly input: NodeJS.ReadStream;
  private readonly output: NodeJS.WriteStream;
  private lines: AsyncIterator<string> | null = null;
  private rl: Interface | null = null;

  constructor(input: NodeJS.ReadStream, output: NodeJS.WriteStream) {
    this.input = input;
    this.output = output;
  }

  async secret(question: string): Promise<string> {
    if (this.input.isTTY) return this.hidden(question);
    this.rl ??= createInterface({ input: this.input, terminal: false });
    this.lines ??= this.rl[Symbol.asyncIterator]();
    const next = await this.lines.next();
    if (next.done) throw new CliError(`${question.replace(/:\s*$/, "")}: nothing on stdin`);
    return next.value.trim();
  }

  close(): void {
    this.rl?.close();
  }

  private hidden(question: string): Promise<string> {
    const rl = createInterface({ input: this.input, output: this.output, terminal: true });
    let asked = false;
    // readline echoes through _writeToOutput: after the question, nothing the user types is written.
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (!asked || s === "\r\n" || s === "\n") this.output.write(s);
    };
    return new Promise((resolve) => {
      rl.question(question, (value) => {
        this.output.write("\n");
        rl.close();
        resolve(value.trim());
      });
      asked = true;
    });
  }
}
