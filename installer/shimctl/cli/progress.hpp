// Progress of long operations (fingerprinting, verification compiles, cache
// archives) on a terminal: one line on stderr, rewritten in place, with the
// counts done, the rate and the time left. Where stderr is not a terminal, or
// the command prints JSON, nothing is drawn: logs stay line-oriented.
//
// Steps report core::Ticks to Context::meter; attach_progress draws them:
//
//   cli::attach_progress(context, json);
//   context.meter({ "exporting", "files", done, total, bytes, total_bytes });
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

// "WHAT  12/345 UNIT  1.2/3.4 GiB  56.7 MiB/s  0:42 left" (parts without
// data are left out); the time left comes from the byte rate when the total
// is known, else from the item rate, and only after ELAPSED > 0.5 s.
[[nodiscard]] std::string format_progress(const core::Tick& tick, double elapsed_seconds);

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
  // Its counts; the label and unit stay the constructor's.
  void update(const core::Tick& tick);
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
  core::Tick tick_; // what and unit view label_ and unit_
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
