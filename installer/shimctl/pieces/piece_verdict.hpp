// The first split of each toolchain is checked against its one-step compile, and the verdict
// ("same" or "differ") kept per user in <cache home>/shimctl/pieces-checked/: a toolchain is
// what the cache tool keys it by (its compiler-check string or sccache's buster), per kind of
// plan (the old driver's objects or -fgpu-rdc, the new driver's, compressed or not).
#pragma once
#include <string>
#include <string_view>

namespace shimctl::pieces {

struct VerdictPlace {
  std::string dir;  // <cache home>/shimctl/pieces-checked; empty: no cache home, none recorded
  std::string name; // the verdict file's name
};

// Where the verdict of REAL's split of KIND is kept, under TOOL_KEY (what the cache tool keys
// the compiler by: cache::Tool::compiler_key).
[[nodiscard]] VerdictPlace verdict_place(const std::string& tool_key,
                                         const std::string& real,
                                         const std::string& kind);
// "same", "differ" or "" (not checked yet); a memo's text.
[[nodiscard]] std::string read_verdict(const VerdictPlace& place);
void record_verdict(const VerdictPlace& place, bool same);
// Keeps TEXT (one word) at PLACE: what a toolchain's plan asked for (piece_compile.cpp).
void record_memo(const VerdictPlace& place, std::string_view text);

} // namespace shimctl::pieces
