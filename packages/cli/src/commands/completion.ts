// `hallmark completion bash|zsh`: a completion script made from the command tree itself, so
// every command and option added later completes without touching this file.
import { Command } from 'commander';

function words(cmd: Command): string[] {
  return [
    ...cmd.commands.map((c) => c.name()),
    ...cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x))),
    '--help',
  ];
}

function cases(cmd: Command, prefix: string[] = []): string[] {
  const own = `    "${prefix.join(' ')}") opts="${words(cmd).join(' ')}" ;;`;
  return [own, ...cmd.commands.flatMap((c) => cases(c, [...prefix, c.name()]))];
}

export function bashScript(program: Command): string {
  return `# hallmark bash completion: eval "$(hallmark completion bash)"
_hallmark() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" i opts=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) path="\${path:+$path }\${COMP_WORDS[i]}" ;; esac
  done
  case "$path" in
${cases(program).join('\n')}
  esac
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o default -F _hallmark hallmark
`;
}

export function completionCommand(program: Command): Command {
  return new Command('completion')
    .description('Print a shell completion script: eval "$(hallmark completion bash)" (or zsh)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell === 'bash') process.stdout.write(bashScript(program));
      else if (shell === 'zsh') {
        process.stdout.write(`# hallmark zsh completion: eval "$(hallmark completion zsh)"
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(program)}`);
      } else throw new Error(`No completion for '${shell}': bash or zsh.`);
    });
}
