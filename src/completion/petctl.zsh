#compdef petctl
# zsh completion for petctl
# Install: petctl completion zsh > "${fpath[1]}/_petctl"   (then start a new shell)
#     or:  source <(petctl completion zsh)                  (after compinit, in ~/.zshrc)
_petctl() {
    local out line
    local -a values descriptions
    out=$(petctl __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    if [[ $out == ":files" ]]; then
        compset -P '--*='
        _files
        return
    fi
    for line in "${(@f)out}"; do
        [[ -n $line ]] || continue
        values+=("${line%%$'\t'*}")
        if [[ -n ${line#*$'\t'} ]]; then
            descriptions+=("${line%%$'\t'*} -- ${line#*$'\t'}")
        else
            descriptions+=("${line%%$'\t'*}")
        fi
    done
    (( ${#values} )) || return 1
    compadd -l -d descriptions -- "${values[@]}"
}
if [[ ${funcstack[1]} == _petctl ]]; then
    _petctl "$@"
elif (( ${+functions[compdef]} )); then
    compdef _petctl petctl
else
    print -u2 "petctl completion: run 'autoload -Uz compinit && compinit' before this script"
fi
