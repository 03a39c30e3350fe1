# Helpers of scripts/bench-shims (scripts/bench itself is Python: scripts/lib/bench/). Source it;
# it sets no shell options.
#   bench_stat CCACHE_DIR NAME   one counter of `ccache --print-stats`
#   bench_shim_syscalls STRACE   the system calls (names, one a line) of an `strace -f -o STRACE`
#                                of a shim: from its execve (included) to the next one (excluded)
#   bench_syscall_summary        stdin's names counted: "name N, name N, ...", most first

bench_stat() { # CCACHE_DIR NAME
  CCACHE_DIR=$1 ccache --print-stats 2>/dev/null | awk -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }'
}

bench_shim_syscalls() { # STRACE
  awk '/execve\(/ { n++ } n == 1 { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' "$1"
}

bench_syscall_summary() {
  sort | uniq -c | sort -rn | awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }'
}
