// `shimctl cache export FILE [PREFIX]` and `shimctl cache import FILE [PREFIX] [--force]`.
#include <fmt/format.h>
#include <memory>
#include <shimctl/cache/cache_archive.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>

namespace shimctl::cli {

namespace {

struct CacheArgs {
  std::string file;
  Common common; // the prefix, --json, --wait
  bool force = false;
};

cache::CacheArchiveOptions options_of(const CacheArgs& args, const core::Context& context) {
  cache::CacheArchiveOptions o;
  o.file = args.file;
  o.prefix = args.common.prefix_or_default();
  o.force = args.force;
  o.session = args.common.session();
  o.meter = context.meter;
  return o;
}

int report(const cache::CacheArchiveResult& r,
           const CacheArgs& args,
           bool is_export,
           Warnings& warnings) {
  if (r.mismatch_forced)
    warnings.add(fmt::format("archive key {} differs from the installed toolchain's {} (--force)",
                             r.header.cache_key,
                             r.installed_key));
  if (args.common.json) {
    auto j = nlohmann::json{ { "archive", args.file },
                             { "cache_dir", r.cache_dir },
                             { "header", cache::to_json(r.header) },
                             { "installed_key", r.installed_key } };
    if (!is_export) {
      j["imported"] = r.imported;
      j["kept"] = r.kept;
      j["forced"] = r.mismatch_forced;
    }
    print_json(std::move(j), warnings);
    return 0;
  }
  if (is_export) {
    fmt::print("exported {} entries ({} bytes) of {} to {}; key {}\n",
               r.header.entries,
               r.header.bytes,
               r.cache_dir,
               args.file,
               r.header.cache_key);
    return 0;
  }
  fmt::print("imported {} entries into {} ({} already present, kept); key {}\n",
             r.imported,
             r.cache_dir,
             r.kept,
             r.header.cache_key);
  return 0;
}

void add_archive_command(CLI::App* cache,
                         core::Context& context,
                         Registry& registry,
                         bool is_export) {
  auto args = std::make_shared<CacheArgs>();
  auto* cmd = cache->add_subcommand(
    is_export ? "export" : "import",
    is_export ? "Write the prefix's local ccache cache to FILE (zstd tar with a toolchain header)"
              : "Restore a cache archive into the prefix's local cache, atomically");
  cmd->add_option("file", args->file, "The archive (e.g. ccache-$(shimctl cache-key).tar.zst)")
    ->required();
  add_common(cmd, args->common, false);
  if (!is_export)
    cmd->add_flag("--force",
                  args->force,
                  "Import an archive made for another toolchain (its entries will not hit)");
  registry.commands.push_back({ cmd, [&context, &registry, args, is_export] {
                                 attach_progress(context, args->common.json);
                                 auto options = options_of(*args, context);
                                 auto r = is_export ? cache::export_cache(context, options)
                                                    : cache::import_cache(context, options);
                                 if (!r)
                                   return report_error(r.error());
                                 return report(*r, *args, is_export, registry.warnings);
                               } });
}

} // namespace

void add_cache_commands(CLI::App& app, core::Context& context, Registry& registry) {
  auto* cache = app.add_subcommand("cache", "CI cache archives: export and import the local cache");
  cache->require_subcommand(1);
  add_archive_command(cache, context, registry, true);
  add_archive_command(cache, context, registry, false);
}

} // namespace shimctl::cli
