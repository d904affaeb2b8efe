// jest's Node environment, noting what each test file cost the CPU: its worker process and the worker's finished
// children (the scanners, validators and tools a test spawns), from before the file's modules load to after its last
// afterAll. ./dev test prints it beside the wall seconds of the slowest files (scripts/test.sh). Notes only when
// SCA_FILE_CPU_DIR names a directory.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TestEnvironment } from "jest-environment-node";

/** utime + stime + cutime + cstime of this process, in clock ticks (1/100 s): fields 14-17 of /proc/self/stat. */
function cpuTicks(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return [14, 15, 16, 17].reduce((sum, field) => sum + Number(fields[field - 3]), 0);
}

export default class FileCpuEnvironment extends TestEnvironment {
  private readonly testPath: string;
  private startTicks = 0;

  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    this.testPath = args[1].testPath;
  }

  override async setup(): Promise<void> {
    this.startTicks = cpuTicks();
    await super.setup();
  }

  override async teardown(): Promise<void> {
    await super.teardown();
    const dir = process.env.SCA_FILE_CPU_DIR;
    if (!dir) return;
    const line = { file: this.testPath, cpuSeconds: (cpuTicks() - this.startTicks) / 100 };
    appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  }
}
