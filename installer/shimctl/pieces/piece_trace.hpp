// SHIMCTL_SHIM_TRACE=1 lines from the pieces: to the shim's own stderr, which the shim names
// in SHIMCTL_TRACE_FD=<fd>:<device>:<inode> (this process's stderr goes into the cached
// result, which ccache replays on every hit). Nothing when that descriptor is not the one named.
#pragma once
#include <string_view>

namespace shimctl::pieces {

void trace(std::string_view line);

} // namespace shimctl::pieces
