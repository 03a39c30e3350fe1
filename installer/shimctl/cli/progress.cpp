#include <fmt/format.h>
#include <memory>
#include <shimctl/cli/progress.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

namespace shimctl::cli {

namespace {

constexpr auto redraw_interval = std::chrono::milliseconds(100);

std::string clock_text(double seconds) {
  auto s = static_cast<std::uint64_t>(seconds + 0.5);
  if (s >= 3600)
    return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::size_t terminal_width(std::FILE* out) {
  winsize ws{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 80;
}

} // namespace

ProgressStyle progress_style(bool json) {
  return !json && ::isatty(STDERR_FILENO) ? ProgressStyle::line : ProgressStyle::quiet;
}

std::string human_bytes(std::uint64_t bytes) {
  constexpr const char* units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

std::string format_progress(const core::Tick& c, double elapsed) {
  std::string_view unit = c.unit;
  std::string line(c.what);
  if (c.total)
    line += fmt::format("  {}/{} {}", c.done, c.total, unit);
  else if (c.done)
    line += fmt::format("  {} {}", c.done, unit);
  if (c.bytes || c.total_bytes)
    line += c.total_bytes ? fmt::format("  {}/{}", human_bytes(c.bytes), human_bytes(c.total_bytes))
                          : fmt::format("  {}", human_bytes(c.bytes));
  if (elapsed <= 0.5)
    return line;
  if (c.bytes)
    line += fmt::format("  {}/s", human_bytes(static_cast<std::uint64_t>(c.bytes / elapsed)));
  else if (c.done)
    line += fmt::format("  {:.1f} {}/s", static_cast<double>(c.done) / elapsed, unit);
  double fraction = 0;
  if (c.total_bytes && c.bytes)
    fraction = static_cast<double>(c.bytes) / static_cast<double>(c.total_bytes);
  else if (c.total && c.done)
    fraction = static_cast<double>(c.done) / static_cast<double>(c.total);
  if (fraction > 0 && fraction < 1)
    line += fmt::format("  {} left", clock_text(elapsed * (1 - fraction) / fraction));
  return line;
}

Progress::Progress(std::string label, std::string unit, ProgressStyle style, std::FILE* out)
  : label_(std::move(label))
  , unit_(std::move(unit))
  , style_(style)
  , out_(out) {}

Progress::~Progress() {
  finish();
}

void Progress::update(const core::Tick& tick) {
  tick_ = tick;
  tick_.what = label_;
  tick_.unit = unit_;
  if (!enabled())
    return;
  auto now = std::chrono::steady_clock::now();
  bool last = tick.total && tick.done >= tick.total;
  if (drawn_ && !last && now - last_draw_ < redraw_interval)
    return;
  last_draw_ = now;
  draw();
}

void Progress::draw() {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  auto line = format_progress(tick_, elapsed);
  // A line wider than the terminal wraps, and \r would rewrite only its tail.
  auto width = terminal_width(out_);
  if (line.size() >= width)
    line.resize(width - 1);
  fmt::print(out_, "\r{}\x1b[K", line);
  std::fflush(out_);
  drawn_ = true;
}

void Progress::clear() {
  if (!drawn_)
    return;
  fmt::print(out_, "\r\x1b[K");
  std::fflush(out_);
  drawn_ = false;
}

void Progress::finish() {
  clear();
  style_ = ProgressStyle::quiet;
}

void attach_progress(core::Context& context, bool json) {
  // One Progress per step; a new step (another WHAT) finishes the previous one.
  auto current = std::make_shared<std::unique_ptr<Progress>>();
  auto style = progress_style(json);
  if (style == ProgressStyle::line)
    context.meter = [current, style](const core::Tick& tick) {
      auto& bar = *current;
      if (!bar || bar->label() != tick.what)
        bar = std::make_unique<Progress>(std::string(tick.what), std::string(tick.unit), style);
      bar->update(tick);
      if (tick.total && tick.done >= tick.total)
        bar.reset();
    };
  if (!json)
    context.progress = [current](const std::string& line) {
      if (*current)
        (*current)->clear();
      fmt::print("{}\n", line);
      std::fflush(stdout);
    };
}

} // namespace shimctl::cli
