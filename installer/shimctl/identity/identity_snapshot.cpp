#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <shim/formats.h> // the format, shared with the shim
#include <shimctl/core/transaction.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/util/lock.hpp>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <time.h>

namespace shimctl::identity {

using util::ExitCode;
using util::fail;

namespace {

std::uint64_t nanoseconds(const timespec& t) {
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(t.tv_nsec);
}

std::vector<std::string> input_files(const core::Manifest& manifest) {
  std::vector<std::string> files;
  for (const auto& input : manifest.fingerprint.inputs)
    files.push_back(input.path);
  return files;
}

std::uint64_t now_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return nanoseconds(now);
}

} // namespace

std::chrono::nanoseconds racy_margin(const InputStat& input) {
  // A whole second: a filesystem with 1 s (ext3) or 2 s (FAT) granularity,
  // most likely. Otherwise the kernel's coarse clock: a tick of 1 to 10 ms.
  return input.ctime_ns % 1'000'000'000 == 0 ? std::chrono::nanoseconds(std::chrono::seconds(2))
                                             : std::chrono::milliseconds(50);
}

std::chrono::nanoseconds racy_wait(const std::vector<InputStat>& inputs, std::uint64_t now) {
  std::chrono::nanoseconds wait(0);
  for (const auto& input : inputs) {
    auto margin = racy_margin(input);
    if (input.ctime_ns + static_cast<std::uint64_t>(margin.count()) > now)
      wait = std::max(wait, margin); // recent, or stamped by a clock ahead of ours
  }
  return wait;
}

util::Result<InputStat> stat_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return fail("cannot read {}: {}", path, std::strerror(errno));
  return InputStat{ path,
                    static_cast<std::uint64_t>(st.st_ino),
                    static_cast<std::uint64_t>(st.st_size),
                    nanoseconds(st.st_mtim),
                    nanoseconds(st.st_ctim) };
}

util::Result<std::vector<InputStat>> stat_inputs(const std::string& prefix,
                                                 const std::vector<std::string>& files) {
  std::vector<InputStat> out;
  for (const auto& file : files) {
    TRY_ASSIGN(auto input, stat_input(input_path(prefix, file)));
    out.push_back(std::move(input));
  }
  return out;
}

namespace {

// Appends what RENDER (a renderer of shim/formats.h, called as RENDER(out, cap)) writes.
template<typename Render>
void append(std::string& out, Render render) {
  auto at = out.size();
  out.resize(at + render(nullptr, 0));
  render(out.data() + at, out.size() - at + 1);
}

} // namespace

std::string render_identity_snapshot(const std::string& fingerprint,
                                     const std::vector<InputStat>& inputs) {
  std::string out;
  append(out, [&](char* to, size_t cap) {
    return shimctl_render_snapshot_start(to, cap, fingerprint.c_str());
  });
  std::string current_dir;
  for (const auto& input : inputs) {
    auto slash = input.path.rfind('/');
    auto dir = slash == 0 ? std::string("/") : input.path.substr(0, slash);
    if (dir != current_dir) {
      append(out, [&](char* to, size_t cap) {
        return shimctl_render_snapshot_dir(to, cap, dir.c_str());
      });
      current_dir = dir;
    }
    auto name = input.path.substr(slash + 1);
    const shimctl_snapshot_input line{
      input.inode, input.size, input.mtime_ns, input.ctime_ns, name.c_str()
    };
    append(out,
           [&](char* to, size_t cap) { return shimctl_render_snapshot_input(to, cap, &line); });
  }
  return out;
}

util::Result<SnapshotResult> snapshot_identity(const util::Dir& prefix_dir,
                                               const core::Manifest& manifest,
                                               SnapshotWriter writer,
                                               const std::optional<InputStat>& manifest_read) {
  auto files = input_files(manifest);
  TRY_ASSIGN(auto before, stat_inputs(manifest.prefix, files));
  // A change in the same clock tick as this stat would leave the stat data
  // equal: hashing after that tick has passed sees it.
  std::this_thread::sleep_for(racy_wait(before, now_ns()));
  TRY_ASSIGN(auto fingerprint, compute_fingerprint(manifest.prefix, files, false));
  TRY_ASSIGN(auto after, stat_inputs(manifest.prefix, files));
  SnapshotResult result{ fingerprint.sha256, false, "", before == after, {}, fingerprint.inputs };
  if (!result.steady) {
    result.why_not = "a toolchain file changed while it was being hashed";
    return result;
  }
  result.stat = after;
  auto state = prefix_dir.open_relative(core::state_dir_name);
  std::optional<util::FileLock> lock; // held until the snapshot is written
  if (state && writer == SnapshotWriter::bystander) {
    auto taken = util::FileLock::try_shared_existing(*state, core::lock_file);
    auto manifest_now = manifest_read ? stat_input(manifest_read->path)
                                      : util::Result<InputStat>(fail("no manifest was read"));
    if (!taken || !manifest_now || *manifest_now != *manifest_read) {
      result.why_not = "a shimctl command is working on the prefix (or changed its manifest)";
      return result;
    }
    lock.emplace(std::move(*taken));
  }
  auto written = state ? state->write_atomic(identity_snapshot_file,
                                             render_identity_snapshot(fingerprint.sha256, after),
                                             0644)
                       : util::Status(std::unexpected(state.error()));
  if (!written) {
    result.why_not = written.error().message;
    return result;
  }
  result.written = true;
  return result;
}

std::optional<ParsedSnapshot> parse_identity_snapshot(std::string_view text) {
  static constexpr std::string_view header =
    SHIMCTL_IDENTITY_HEADER "\n" SHIMCTL_IDENTITY_FINGERPRINT;
  constexpr std::size_t digits = SHIMCTL_FINGERPRINT_HEX;
  if (!text.starts_with(header) || text.size() < header.size() + digits + 1 ||
      text[header.size() + digits] != '\n' || !text.ends_with('\n'))
    return std::nullopt;
  ParsedSnapshot snapshot;
  snapshot.fingerprint = std::string(text.substr(header.size(), digits));
  std::string dir_path;
  std::istringstream lines{ std::string(text.substr(header.size() + digits + 1)) };
  std::string line;
  while (std::getline(lines, line)) {
    static constexpr std::string_view dir_line = SHIMCTL_IDENTITY_DIR;
    if (line.starts_with(dir_line)) {
      dir_path = line.substr(dir_line.size());
      continue;
    }
    InputStat input;
    std::istringstream fields(line);
    std::string name;
    if (!(fields >> input.inode >> input.size >> input.mtime_ns >> input.ctime_ns) ||
        fields.get() != ' ' || !std::getline(fields, name) || dir_path.empty())
      return std::nullopt; // not what render_identity_snapshot writes
    input.path = (dir_path == "/" ? "" : dir_path) + "/" + name;
    snapshot.inputs.push_back(std::move(input));
  }
  return snapshot;
}

std::optional<ParsedSnapshot> read_identity_snapshot(const std::string& prefix) {
  auto dir = util::Dir::open(prefix);
  auto state = dir ? dir->open_relative(core::state_dir_name)
                   : util::Result<util::Dir>(std::unexpected(dir.error()));
  auto text = state ? state->read_file(identity_snapshot_file) : util::Result<std::string>("");
  if (!text)
    return std::nullopt;
  return parse_identity_snapshot(*text);
}

std::vector<InputStat> vouched_inputs(const core::Manifest& manifest) {
  auto snapshot = read_identity_snapshot(manifest.prefix);
  if (!snapshot || snapshot->fingerprint != manifest.fingerprint.sha256)
    return {};
  return snapshot->inputs;
}

SnapshotState snapshot_state(const core::Manifest& manifest) {
  SnapshotState state;
  auto snapshot = read_identity_snapshot(manifest.prefix);
  if (!snapshot)
    return state;
  state.present = true;
  state.fingerprint = snapshot->fingerprint;
  for (const auto& input : snapshot->inputs) {
    auto now = stat_input(input.path);
    if (!now || *now != input)
      state.stale_inputs.push_back(input.path);
  }
  return state;
}

void record_identity_snapshot(const core::Context& context,
                              const util::Dir& prefix_dir,
                              const core::Manifest& manifest) {
  context.progress("recording the identity snapshot");
  auto snapshot = snapshot_identity(prefix_dir, manifest, SnapshotWriter::lock_holder);
  if (!snapshot)
    context.warn(fmt::format("identity snapshot not written: {}; the first compile re-hashes",
                             snapshot.error().message));
  else if (!snapshot->written)
    context.warn(fmt::format("identity snapshot not written: {}; the first compile re-hashes",
                             snapshot->why_not));
  else if (snapshot->fingerprint != manifest.fingerprint.sha256)
    context.warn("the toolchain changed during the install: compiles are keyed by its new "
                 "contents; run 'shimctl refresh' to record them");
}

} // namespace shimctl::identity
