#include <shimctl/core/session.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/identity/identity_check.hpp>
#include <shimctl/identity/user_snapshot.hpp>
#include <shimctl/records/record_store.hpp>

namespace shimctl::identity {

using util::ExitCode;
using util::fail;

namespace {

// The files of the fingerprint just computed, kept for `shimctl explain` (records/): a miss after
// a toolchain change can then name the file that changed.
void keep_toolchain_files(const SnapshotResult& snapshot) {
  if (!snapshot.steady || snapshot.inputs.empty())
    return;
  auto dir = core::make_user_cache_dir("records");
  if (!dir)
    return;
  records::ToolchainFiles files;
  for (const auto& in : snapshot.inputs)
    files[in.path] = in.sha256;
  records::save_toolchain_files(*dir, snapshot.fingerprint.substr(0, 32), files);
}

} // namespace

util::Result<IdentityCheck> check_identity(const std::string& prefix,
                                           const std::vector<std::string>& cache_tools) {
  TRY_ASSIGN(auto dir, util::Dir::open(prefix));
  // The manifest's stat data before it is read: what the snapshot is valid with.
  auto manifest_read = stat_input(fmt::format(
    "{}/{}/{}", prefix == "/" ? "" : prefix, core::state_dir_name, core::manifest_file));
  TRY_ASSIGN(auto manifest, core::load_manifest(dir, prefix, cache_tools));
  if (!manifest || !manifest_read)
    return fail(ExitCode::not_installed, "{} is not installed", prefix);
  IdentityCheck check;
  TRY_ASSIGN(check.snapshot,
             snapshot_identity(dir, *manifest, SnapshotWriter::bystander, *manifest_read));
  keep_toolchain_files(check.snapshot);
  if (check.snapshot.written || !check.snapshot.steady)
    return check;
  auto written =
    write_user_snapshot(prefix, check.snapshot.fingerprint, *manifest_read, check.snapshot.stat);
  if (written)
    check.user_snapshot = *written;
  else
    check.user_why_not = written.error().message;
  return check;
}

} // namespace shimctl::identity
