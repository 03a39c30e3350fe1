# multiuser's tests on the third stack: a root-installed clang-23 prefix (the new offload driver by
# default) serving other users, with sccache 0.17 and ccache 4.14.2 (sid_multiuser.bash with
# SID_LLVM=23).
# Each user's server and directories, a cache dir a user cannot write, sccache failing by itself and
# a group-shared ccache cache do not depend on the driver: sid_multiuser runs them. Left here:
# every compile runs as its caller (the new driver's wrapper runs the shim again, as the caller).
SUITE_TESTS_SKIP='another_users_listener|cache_dir_the_user_cannot_write|failing_by_itself|ccache_group_members'
SUITE_TESTS_SKIP_WHY="servers, directories and groups do not depend on the driver (sid_multiuser runs them)"
SID_LLVM=23
source "$(dirname "${BASH_SOURCE[0]}")/sid_multiuser.bash"
