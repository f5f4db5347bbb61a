/** Each script hands the words on the line to `petctl __complete -- <words>` and shows what it prints, so a script
 * never goes stale. Hand-written, not a library's: docs/completion.md says why. */

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// bash splits `--status=av` at "=": the loop glues it back, and the answers are cut to the part after
// the "=" that readline replaces. No negative indices or bash-completion helpers, for macOS's bash 3.2.
const BASH = `# bash completion for petctl
# Install: echo 'source <(petctl completion bash)' >> ~/.bashrc
_petctl() {
    local -a args=()
    local i word line
    for ((i = 1; i <= COMP_CWORD; i++)); do
        word=\${COMP_WORDS[i]}
        if ((\${#args[@]} > 0)) && [[ $word == "=" || \${COMP_WORDS[i-1]} == "=" ]]; then
            args[\${#args[@]}-1]+=$word
        else
            args+=("$word")
        fi
    done
    ((\${#args[@]} > 0)) || args=("")
    local current=\${args[\${#args[@]}-1]}
    local out
    out=$(petctl __complete -- "\${args[@]}" 2>/dev/null) || return 0
    COMPREPLY=()
    if [[ $out == ":files" ]]; then
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "\${current##*=}")
        return 0
    fi
    local cut=""
    [[ $current == --*=* ]] && cut=\${current%=*}=
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        line=\${line%%$'\\t'*}
        COMPREPLY+=("\${line#"$cut"}")
    done <<< "$out"
    return 0
}
complete -F _petctl petctl
`;

// zsh: autoloaded from $fpath the body runs as _petctl on each TAB; sourced, it registers _petctl with compdef.
const ZSH = `#compdef petctl
# zsh completion for petctl
# Install: petctl completion zsh > "\${fpath[1]}/_petctl"   (then start a new shell)
#     or:  source <(petctl completion zsh)                  (after compinit, in ~/.zshrc)
_petctl() {
    local out line
    local -a values descriptions
    out=$(petctl __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    if [[ $out == ":files" ]]; then
        compset -P '--*='
        _files
        return
    fi
    for line in "\${(@f)out}"; do
        [[ -n $line ]] || continue
        values+=("\${line%%$'\\t'*}")
        if [[ -n \${line#*$'\\t'} ]]; then
            descriptions+=("\${line%%$'\\t'*} -- \${line#*$'\\t'}")
        else
            descriptions+=("\${line%%$'\\t'*}")
        fi
    done
    (( \${#values} )) || return 1
    compadd -l -d descriptions -- "\${values[@]}"
}
if [[ \${funcstack[1]} == _petctl ]]; then
    _petctl "$@"
elif (( \${+functions[compdef]} )); then
    compdef _petctl petctl
else
    print -u2 "petctl completion: run 'autoload -Uz compinit && compinit' before this script"
fi
`;

// fish: \`complete -a\` takes "value<TAB>description" lines as they are.
const FISH = `# fish completion for petctl
# Install: petctl completion fish > ~/.config/fish/completions/petctl.fish
function __petctl_complete
    set -l tokens (commandline -opc)
    set -l out (petctl __complete -- $tokens[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out" = ":files"
        set -l token (commandline -ct)
        set -l flag (string match -r -- '^--[^=]*=' $token)
        for path in (__fish_complete_path (string replace -r -- '^--[^=]*=' '' $token))
            printf '%s%s\\n' "$flag" $path
        end
        return
    end
    printf '%s\\n' $out
end
complete -c petctl -e
complete -c petctl -f -a '(__petctl_complete)'
`;

export function completionScript(shell: Shell): string {
  return { bash: BASH, zsh: ZSH, fish: FISH }[shell];
}
