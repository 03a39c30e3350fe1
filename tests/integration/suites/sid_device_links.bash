# device_links.bash on the sid stack: clang-21, the old offload driver (its per-target lld jobs
# through shimctl as `lld`), hipcc 7.0.2, rocm-device-libs-21, in the sid root. The store's own
# behaviours (a shared cache's group, CI archives, a read-only install) run where each driver
# has its stack: Debian 12's device_links (old driver) and sid23_device_links (new driver).
DL_STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/device_links.bash
SUITE_TESTS_SKIP='shared_cache|in_cache_archives|remote_read_only'
SUITE_TESTS_SKIP_WHY="the store's own behaviour: device_links (old driver) and sid23_device_links (new driver) run it"
source "$SUITE_TESTS_FILE"
