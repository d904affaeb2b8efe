// sca completion bash|zsh|fish: a completion script written from the command tree itself, so a new command or
// option completes without anyone editing a script. Install: `source <(sca completion bash)` (docs/ci.md).
import { Argument, type Command } from "commander";
import { CliError } from "../exit-codes.ts";
import type { Session } from "../session.ts";

interface Node {
  path: string[];
  words: string[];
}

/** Every command path with the words that may follow it (subcommands and long options). */
export function completionTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const words = [...cmd.commands.map((c) => c.name()), ...cmd.options.flatMap((o) => (o.long ? [o.long] : []))];
    nodes.push({ path, words });
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return nodes;
}

export function completionScript(shell: string, program: Command): string {
  const nodes = completionTree(program);
  const globals = program.options.flatMap((o) => (o.long ? [o.long] : []));
  if (shell === "bash" || shell === "zsh") {
    const known = nodes
      .filter((n) => n.path.length > 0)
      .map((n) => `"${n.path.join(" ")}"`)
      .join("|");
    const cases = nodes
      .map((n) => `    "${n.path.join(" ")}") words="${[...n.words, ...(n.path.length ? globals : [])].join(" ")}" ;;`)
      .join("\n");
    // The command path is the longest run of words naming a command; option values and file names are skipped.
    return [
      shell === "zsh" ? "autoload -U +X bashcompinit && bashcompinit" : "",
      "_sca() {",
      '  local cur="${COMP_WORDS[COMP_CWORD]}" path="" w words=""',
      '  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do',
      `    case "\${path:+$path }$w" in ${known}) path="\${path:+$path }$w" ;; esac`,
      "  done",
      '  case "$path" in',
      cases,
      "  esac",
      '  COMPREPLY=( $(compgen -W "$words" -- "$cur") )',
      "}",
      "complete -o default -F _sca sca",
      "",
    ].join("\n");
  }
  if (shell === "fish") {
    const lines = nodes.flatMap((n) => {
      const condition =
        n.path.length === 0 ? "__fish_use_subcommand" : `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}`;
      return n.words.map((w) =>
        w.startsWith("--")
          ? `complete -c sca -n '${condition}' -l ${w.slice(2)}`
          : `complete -c sca -f -n '${condition}' -a ${w}`,
      );
    });
    return `${lines.join("\n")}\n`;
  }
  throw new CliError(`no completion for ${shell}: bash, zsh or fish`);
}

export function completionCommand(program: Command, session: Session): void {
  program
    .command("completion")
    .description("print a shell completion script: source <(sca completion bash)")
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(["bash", "zsh", "fish"]))
    .action((shell: string) => session.terminal.result(completionScript(shell, program)));
}
