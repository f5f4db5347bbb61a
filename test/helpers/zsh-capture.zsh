#!/usr/bin/env zsh
# Prints, one per line, what zsh's completion system offers for a command line:
#   zsh -f zsh-capture.zsh <setup-file> '<command line>'
# It starts an interactive zsh in a pseudo-terminal (zpty), sources <setup-file>
# there (fpath, compinit, the completion script), types the line and TAB, and
# records every match the completion functions add: compadd is wrapped to run
# the real builtin with -O, which applies zsh's own matching and hands back the
# matches. So the whole compsys path runs (compinit, _main_complete, _petctl),
# only the display is skipped. The approach is the one of Valodim's
# zsh-capture-completion. The inner shell exits after one completion.
zmodload zsh/zpty || exit 3
setup=$1
line=$2

zpty capture zsh -f -i
# The markers are written '<<<''x>>>' so that the terminal's echo of these
# commands never contains them; only their output does.
zpty -w capture "PROMPT= RPROMPT= PS2=
bindkey '^I' complete-word
__mark() { print -r -- '<<<''capture>>>' }
zstyle ':completion:*' insert-tab false
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd \"\$@\"; return; fi
  local -a __hits
  builtin compadd -O __hits \"\$@\"
  (( \$#__hits )) || return 1
  print -rl -- '<<<''match>>>'\${^__hits}
}
source ${(q)setup}
# After the set-up: compinit would reset these.
compprefuncs=(__mark)
comppostfuncs=(__mark exit)
print -r -- '<<<''ready>>>'"

# Wait for the set-up to finish before typing, so no keystroke lands in the middle of it.
ready=0
while zpty -r capture out; do
  [[ $out == *'<<<ready>>>'* ]] && { ready=1; break }
done
(( ready )) || { print -u2 'zsh set-up failed'; exit 2 }

zpty -w -n capture "$line"$'\t'
fences=0
while zpty -r capture out; do
  out=${out%$'\r'}
  out=${out%$'\n'}
  out=${out%$'\r'}
  if [[ $out == *'<<<capture>>>'* ]]; then
    (( ++fences == 2 )) && break
  elif [[ $out == *'<<<match>>>'* ]]; then
    print -r -- ${out#*'<<<match>>>'}
  fi
done
zpty -d capture
(( fences == 2 )) || { print -u2 'no completion happened'; exit 2 }
exit 0
