# fish completion for petctl
# Install: petctl completion fish > ~/.config/fish/completions/petctl.fish
function __petctl_complete
    set -l tokens (commandline -opc)
    set -l out (petctl __complete -- $tokens[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out" = ":files"
        set -l token (commandline -ct)
        set -l flag (string match -r -- '^--[^=]*=' $token)
        for path in (__fish_complete_path (string replace -r -- '^--[^=]*=' '' $token))
            printf '%s%s\n' "$flag" $path
        end
        return
    end
    printf '%s\n' $out
end
complete -c petctl -e
complete -c petctl -f -a '(__petctl_complete)'
