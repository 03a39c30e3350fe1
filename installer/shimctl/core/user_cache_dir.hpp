// The user's own directories of shimctl under the cache home (${XDG_CACHE_HOME:-$HOME/.cache}/
// shimctl/NAME, shim/formats.h's rule): the per-target pieces' verdicts, the device links' store.
#pragma once

#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>

namespace shimctl::core {

// <cache home>/shimctl/NAME, made nowhere; "" without a cache home.
[[nodiscard]] std::string user_cache_dir(std::string_view name);

// A user's own file of PREFIX (shim/formats/user_files.h): <cache home>/shimctl/SUBDIR/<PREFIX
// encoded>; "" without a cache home or when the name is too long.
[[nodiscard]] std::string user_prefix_file(const char* subdir, const std::string& prefix);

// The same, made 0700 where missing (the cache home too when its parent is there, as XDG asks:
// a new user's ~/.cache); an error when there is no cache home or a directory cannot be made.
[[nodiscard]] util::Result<std::string> make_user_cache_dir(std::string_view name);

} // namespace shimctl::core
