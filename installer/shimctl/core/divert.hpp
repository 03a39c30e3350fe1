// dpkg diversions for Debian-packaged toolchains (`install --divert`): with a
// diversion of PATH to PATH.real, dpkg writes the package's next version of
// PATH to PATH.real, so an upgrade lands under the shim instead of over it.
// shimctl's own steps move the files (link_real, place_shim, restore); the
// diversion is only recorded here (--no-rename) and owned by "shimctl".
#pragma once

#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

inline constexpr std::string_view divert_owner = "shimctl";

// The compilers of MANIFEST (absolute paths under PREFIX) that a dpkg package
// ships, per `dpkg-query -S`. Empty when dpkg is not installed.
[[nodiscard]] util::Result<std::vector<std::string>> packaged_compilers(const Manifest& manifest);

// Marks MANIFEST's packaged compilers as diverted_by "dpkg" when DIVERT, and
// adds a note to NOTES otherwise (or when only some are packaged). --divert
// with no packaged compiler is an error.
[[nodiscard]] util::Status plan_diversions(Manifest& manifest,
                                           bool divert,
                                           std::vector<std::string>& notes);

// Adds the diversion of ABS_PATH to ABS_PATH.real by shimctl; a no-op when it
// exists. Refuses a diversion of ABS_PATH by anyone else.
[[nodiscard]] util::Status add_diversion(const std::string& abs_path);

// Removes shimctl's diversion of ABS_PATH; a no-op when there is none.
[[nodiscard]] util::Status remove_diversion(const std::string& abs_path);

} // namespace shimctl::core
