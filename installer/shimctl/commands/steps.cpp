#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/commands/steps.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

using util::fail;

Step shim_step(const WrappedCompiler& c) {
  auto shim = Step::of(StepKind::place_shim, c.path);
  shim.mode = c.original.mode;
  shim.uid = c.original.uid;
  shim.gid = c.original.gid;
  return shim;
}

Step manifest_step(const Manifest& m) {
  auto step = Step::of(StepKind::write_file, fmt::format("{}/{}", state_dir_name, manifest_file));
  step.content = to_json(m);
  return step;
}

StepObserver step_progress(const Context& context, std::size_t total) {
  return [&context, total](std::size_t i, const Step&, const std::string& what) {
    context.progress(fmt::format("[{}/{}] {}", i + 1, total, what));
  };
}

util::Result<Step> secret_step(const CacheSettings& cache,
                               const std::optional<std::vector<std::string>>& lines) {
  auto path = fmt::format("{}/{}", state_dir_name, secrets_file);
  if (!lines)
    return Step::of(StepKind::remove_secret, path);
  auto step = Step::of(StepKind::write_secret, path);
  step.content = cache::render_secrets(*lines);
  TRY_ASSIGN(auto owner, cache::secrets_owner(cache));
  step.mode = owner.mode;
  step.gid = owner.gid;
  return step;
}

std::vector<Step> install_steps(const Manifest& m, const std::optional<Step>& secret) {
  std::vector<Step> steps;
  for (const auto& c : m.compilers) {
    auto link = Step::of(StepKind::link_real, c.path);
    link.sha256 = c.original.sha256;
    steps.push_back(link);
  }
  // After link_real (the .real exists), before place_shim (dpkg must not
  // see a shim at a packaged path without the diversion).
  for (const auto& c : m.compilers)
    if (c.diverted_by)
      steps.push_back(Step::of(StepKind::divert, c.path));
  if (secret)
    steps.push_back(*secret);
  auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, cache::identity_paths(m));
  for (const auto& dir : cache::shim_directories(m)) {
    auto conf = Step::of(StepKind::write_file, shim_config_path(dir));
    conf.content = cache::render_shim_config(m, dir, env);
    steps.push_back(conf);
  }
  for (const auto& c : m.compilers)
    steps.push_back(shim_step(c));
  steps.push_back(manifest_step(m));
  return steps;
}

util::Result<FileRecord> record_original(const util::Dir& prefix_dir, const std::string& path) {
  auto [dir_path, name] = util::split_relative(path);
  TRY_ASSIGN(auto dir, prefix_dir.open_relative(dir_path));
  TRY_ASSIGN(auto st, dir.stat(name));
  if (!st || st->kind != util::FileKind::file)
    return fail("{} is not a regular file", dir.path_of(name));
  FileRecord r;
  TRY_ASSIGN(r.sha256, dir.sha256(name));
  r.size = st->size;
  r.mode = st->mode;
  r.uid = st->uid;
  r.gid = st->gid;
  return r;
}

std::vector<Step> rollback_steps(const Manifest& m) {
  std::vector<Step> steps;
  // Diversions first: should dpkg upgrade the package before the restore, it
  // replaces the shim and restore keeps that newer file (never the reverse).
  for (const auto& c : m.compilers)
    if (c.diverted_by)
      steps.push_back(Step::of(StepKind::undivert, c.path));
  for (const auto& c : m.compilers)
    steps.push_back(Step::of(StepKind::restore, c.path));
  for (const auto& f : m.created_files)
    steps.push_back(Step::of(StepKind::remove_file, f));
  if (m.cache.remote_secret) // a remote's credential
    steps.push_back(
      Step::of(StepKind::remove_file, fmt::format("{}/{}", state_dir_name, secrets_file)));
  steps.push_back(
    Step::of(StepKind::remove_file, fmt::format("{}/{}", state_dir_name, manifest_file)));
  steps.push_back(
    Step::of(StepKind::remove_file, fmt::format("{}/{}", state_dir_name, events_file)));
  return steps;
}

} // namespace shimctl::commands
