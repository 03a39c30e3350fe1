// Progress of long operations (fingerprinting, verification compiles, cache
// archives) on a terminal: one line on stderr, rewritten in place, with the
// counts done, the rate and the time left. Where stderr is not a terminal, or
// the command prints JSON, nothing is drawn: logs stay line-oriented.
//
//   cli::Progress bar("exporting", "files", cli::progress_style(json));
//   for (...) bar.update({files_done, files_total, bytes_done, bytes_total});
//   bar.finish();   // erases the line; then print the result as usual
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <shimctl/core/context.hpp>
#include <string>
#include <string_view>

namespace shimctl::cli {

enum class ProgressStyle {
  line,  // one rewritten line on stderr
  quiet, // draw nothing
};

// `line` when stderr is a terminal and the command does not print JSON.
[[nodiscard]] ProgressStyle progress_style(bool json);

struct ProgressCounts {
  std::uint64_t done = 0;        // items done (files, compiles, entries)
  std::uint64_t total = 0;       // items in all (0: unknown)
  std::uint64_t bytes = 0;       // bytes done (0: not measured)
  std::uint64_t total_bytes = 0; // bytes in all (0: unknown)
};

// "LABEL  12/345 UNIT  1.2/3.4 GiB  56.7 MiB/s  0:42 left" (parts without
// data are left out); the time left comes from the byte rate when the total
// is known, else from the item rate, and only after ELAPSED > 0.5 s.
[[nodiscard]] std::string format_progress(std::string_view label,
                                          std::string_view unit,
                                          const ProgressCounts& counts,
                                          double elapsed_seconds);

// "1.5 KiB", "230.0 MiB", "3.2 GiB".
[[nodiscard]] std::string human_bytes(std::uint64_t bytes);

class Progress {
public:
  Progress(std::string label, std::string unit, ProgressStyle style, std::FILE* out = stderr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  [[nodiscard]] bool enabled() const {
    return style_ == ProgressStyle::line;
  }
  [[nodiscard]] const std::string& label() const {
    return label_;
  }
  // Redraws at most every 100 ms, and always for the last item.
  void update(const ProgressCounts& counts);
  // Erases the line so that other output can follow; the next update redraws it.
  void clear();
  // Erases the line for good.
  void finish();

private:
  void draw();
  std::string label_;
  std::string unit_;
  ProgressStyle style_;
  std::FILE* out_;
  ProgressCounts counts_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

// Connects CONTEXT to the terminal for the core's long steps: every
// core::Tick goes to a Progress line (one per step, style chosen by
// progress_style(JSON)); the text lines of context.progress go to stdout
// unless JSON, erasing the progress line first.
void attach_progress(core::Context& context, bool json);

} // namespace shimctl::cli
