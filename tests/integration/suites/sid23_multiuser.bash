# multiuser's tests on the third stack: a root-installed clang-23 prefix (the new offload driver by
# default) serving other users, with sccache 0.17 and ccache 4.14.2 (sid_multiuser.bash with
# SID_LLVM=23).
SID_LLVM=23
source "$(dirname "${BASH_SOURCE[0]}")/sid_multiuser.bash"
