# bash completion for petctl
# Install: echo 'source <(petctl completion bash)' >> ~/.bashrc
_petctl() {
    local -a args=()
    local i word line
    for ((i = 1; i <= COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if ((${#args[@]} > 0)) && [[ $word == "=" || ${COMP_WORDS[i-1]} == "=" ]]; then
            args[${#args[@]}-1]+=$word
        else
            args+=("$word")
        fi
    done
    ((${#args[@]} > 0)) || args=("")
    local current=${args[${#args[@]}-1]}
    local out
    out=$(petctl __complete -- "${args[@]}" 2>/dev/null) || return 0
    COMPREPLY=()
    if [[ $out == ":files" ]]; then
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "${current##*=}")
        return 0
    fi
    local cut=""
    [[ $current == --*=* ]] && cut=${current%=*}=
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        line=${line%%$'\t'*}
        COMPREPLY+=("${line#"$cut"}")
    done <<< "$out"
    return 0
}
complete -F _petctl petctl
