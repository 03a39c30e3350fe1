# The logic of shimctl's bash completion. The build puts the tables from
# `shimctl help-completion` (generated from the parser: commands, options, what
# each value is) in front of this file and installs the result as
# share/bash-completion/completions/shimctl.
#
# Tables, keyed by the command path ("shimctl", "shimctl install", "shimctl cache export"):
#   _shimctl_subcommands  its subcommands          _shimctl_flags   options without a value
#   _shimctl_valued       options with a value     _shimctl_positionals  kinds of its positionals
#   _shimctl_values["PATH --opt"]  what the value completes to:
#       @dir, @file, @group, a word list, or "" (nothing to propose)

# _shimctl_complete_kind KIND CUR: fill COMPREPLY for one value.
_shimctl_complete_kind() {
  local kind=$1 cur=$2
  case $kind in
    @dir)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    @file | @any)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    @group) mapfile -t COMPREPLY < <(compgen -g -- "$cur") ;;
    "") COMPREPLY=() ;;
    *) mapfile -t COMPREPLY < <(compgen -W "$kind" -- "$cur") ;;
  esac
}

_shimctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} path=shimctl word i npos=0 pending=""
  COMPREPLY=()
  # Walk the words before the cursor: subcommands extend the path; an option
  # with a value consumes the next word; anything else is a positional.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ -n $pending ]]; then
      [[ $word == "=" ]] && continue
      pending=""
      continue
    fi
    case $word in
      --*=*) continue ;;
      -*)
        [[ " ${_shimctl_valued[$path]-} " == *" $word "* ]] && pending=$word
        continue ;;
    esac
    if [[ " ${_shimctl_subcommands[$path]-} " == *" $word "* ]]; then
      path="$path $word"
      npos=0
    else
      npos=$((npos + 1))
    fi
  done
  # The value of an option: "--cache-dir DIR", or "--cache-dir=DIR" (bash splits at '=').
  if [[ -n $pending ]]; then
    [[ $cur == "=" ]] && cur=""
    _shimctl_complete_kind "${_shimctl_values["$path $pending"]-}" "$cur"
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_shimctl_flags[$path]-} ${_shimctl_valued[$path]-}" -- "$cur")
    return 0
  fi
  if [[ -n ${_shimctl_subcommands[$path]-} ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_shimctl_subcommands[$path]}" -- "$cur")
    return 0
  fi
  local -a kinds
  read -r -a kinds <<< "${_shimctl_positionals[$path]-}"
  _shimctl_complete_kind "${kinds[npos]-}" "$cur"
  return 0
}

complete -F _shimctl shimctl
