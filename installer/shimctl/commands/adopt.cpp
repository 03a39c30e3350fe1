#include <algorithm>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/commands/adopt.hpp>
#include <shimctl/commands/steps.hpp>
#include <shimctl/core/layout.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/identity/identity_snapshot.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

using util::fail;

util::Result<std::vector<std::string>> upgraded_compilers(const Session& session) {
  std::vector<std::string> upgraded;
  const auto& m = *session.manifest;
  for (const auto& c : m.compilers) {
    auto [dir_path, name] = util::split_relative(c.path);
    TRY_ASSIGN(auto dir, session.dir.open_relative(dir_path));
    TRY_ASSIGN(auto st, dir.stat(name));
    if (!st || st->kind != util::FileKind::file)
      continue;
    if (st->size == m.shim_size) {
      TRY_ASSIGN(auto digest, dir.sha256(name));
      if (digest == m.shim_sha256)
        continue;
    }
    upgraded.push_back(c.path);
  }
  return upgraded;
}

util::Result<std::vector<std::string>> diverted_updates(const Session& session) {
  std::vector<std::string> updated;
  for (const auto& c : session.manifest->compilers) {
    if (!c.diverted_by)
      continue;
    auto [dir_path, real_name] = util::split_relative(c.real);
    TRY_ASSIGN(auto dir, session.dir.open_relative(dir_path));
    TRY_ASSIGN(auto st, dir.stat(real_name));
    if (!st || st->kind != util::FileKind::file)
      continue; // gone: verify reports it
    TRY_ASSIGN(auto digest, dir.sha256(real_name));
    if (digest != c.original.sha256)
      updated.push_back(c.path);
  }
  return updated;
}

util::Status rewrite_identity(const Context& context,
                              Session& session,
                              const std::vector<std::string>& reshim,
                              Manifest& updated,
                              const std::optional<Step>& secret) {
  const Manifest& old = *session.manifest;
  // A diverted compiler's .real is the package's current file: record it as
  // the original (install and refresh alike), so verify and rollback agree.
  TRY_ASSIGN(auto by_package, diverted_updates(session));
  for (auto& c : updated.compilers) {
    if (std::find(by_package.begin(), by_package.end(), c.path) != by_package.end()) {
      TRY_ASSIGN(c.original, record_original(session.dir, c.real));
    }
  }
  TRY_ASSIGN(auto layout, manifest_layout(context.layouts_dir, old.layout));
  std::vector<std::string> wrapped;
  for (const auto& c : old.compilers)
    wrapped.push_back(c.path);
  TRY_ASSIGN(updated.fingerprint,
             identity::fingerprint_toolchain(
               context, old.prefix, layout, wrapped, false, identity::Announce::yes));

  auto old_env =
    cache::shim_environment(old.cache, old.fingerprint.sha256, cache::identity_paths(old));
  auto new_env = cache::shim_environment(
    updated.cache, updated.fingerprint.sha256, cache::identity_paths(updated));
  std::vector<Step> steps;
  // A new credential is in place before the configs that name it; one no longer named goes after.
  if (secret && secret->kind == StepKind::write_secret)
    steps.push_back(*secret);
  for (const auto& dir : cache::shim_directories(updated)) {
    auto conf = Step::of(StepKind::write_file, shim_config_path(dir));
    conf.content = cache::render_shim_config(updated, dir, new_env);
    conf.previous = cache::render_shim_config(old, dir, old_env);
    steps.push_back(conf);
  }
  for (const auto& c : updated.compilers) {
    if (std::find(reshim.begin(), reshim.end(), c.path) == reshim.end())
      continue;
    steps.push_back(shim_step(c));
  }
  if (secret && secret->kind != StepKind::write_secret)
    steps.push_back(*secret);
  auto manifest = manifest_step(updated);
  manifest.previous = to_json(old);
  steps.push_back(manifest);
  Journal journal{ "refresh", Recovery::undo, old.shim_sha256, steps };
  Transaction transaction(session.dir, session.shim_bytes);
  TRY(transaction.run(journal, step_progress(context, journal.steps.size())));
  session.manifest = updated;
  identity::record_identity_snapshot(context, session.dir, updated);
  return {};
}

util::Status readopt_upgraded(const Context& context, Session& session, InstallResult& result) {
  TRY_ASSIGN(auto upgraded, upgraded_compilers(session));
  TRY_ASSIGN(auto by_package, diverted_updates(session));
  if (upgraded.empty() && by_package.empty())
    return {};
  for (const auto& path : by_package)
    context.warn(fmt::format("{} was updated by its package under the dpkg diversion; "
                             "recording the new file as the original",
                             path));
  const Manifest& old = *session.manifest;
  std::vector<Step> adopt;
  for (const auto& path : upgraded) {
    adopt.push_back(Step::of(StepKind::adopt_original, path));
    context.warn(fmt::format("{} was replaced by a newer compiler (a package upgrade?); "
                             "adopting it as the original",
                             path));
  }
  if (!adopt.empty()) {
    Journal journal{ "adopt", Recovery::redo, old.shim_sha256, adopt };
    Transaction transaction(session.dir, session.shim_bytes);
    TRY(transaction.run(journal));
  }
  Manifest updated = old;
  for (auto& c : updated.compilers) {
    if (std::find(upgraded.begin(), upgraded.end(), c.path) != upgraded.end()) {
      TRY_ASSIGN(c.original, record_original(session.dir, c.real));
    }
  }
  TRY(rewrite_identity(context, session, upgraded, updated));
  result.action = InstallResult::Action::readopted;
  result.manifest = updated;
  return {};
}

} // namespace shimctl::commands
