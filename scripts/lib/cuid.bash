# The shim's -cuid= value, for reference compiles without the shim. Source it; no shell options.
# shim_cuid SOURCE OUTPUT: the value of the -cuid= the shim gives a HIP compile of SOURCE to
# OUTPUT (as named, relative to the working directory): shim/formats.h's shimctl_cuid_value, for
# a reference compile without the shim. 64-bit FNV-1a; bash's arithmetic wraps like C's.
shim_cuid() {
  local LC_ALL=C h=-3750763034362895579 part i c # 14695981039346656037, signed; bytes, not characters
  for part in "shimctl-cuid 1" "$1" "$2"; do
    for ((i = 0; i < ${#part}; i++)); do
      printf -v c '%d' "'${part:i:1}"
      h=$(( (h ^ (c & 255)) * 1099511628211 ))
    done
    h=$(( h * 1099511628211 ))
  done
  printf '%016x\n' "$h"
}
