# distro.bash on the third stack: a distribution's ROCm in /usr whose hipcc runs clang-23, the new
# offload driver (sid_distro.bash with SID_LLVM=23), in the sid root's own /usr under an overlay.
SID_LLVM=23
source "$(dirname "${BASH_SOURCE[0]}")/sid_distro.bash"
