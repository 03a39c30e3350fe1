#include <algorithm>
#include <nlohmann/json.hpp>
#include <shimctl/core/layout.hpp>
#include <shimctl/util/dir.hpp>

namespace shimctl::core {

using util::ExitCode;
using util::fail;

std::string to_string(VerifyKind kind) {
  switch (kind) {
    case VerifyKind::hip:
      return "hip";
    case VerifyKind::c_cxx:
      return "c-cxx";
    case VerifyKind::cuda:
      return "cuda";
  }
  return "?";
}

namespace {

util::Result<CompilerSpec> parse_compiler(const nlohmann::json& j, const std::string& origin) {
  CompilerSpec spec;
  spec.path = j.at("path").get<std::string>();
  spec.family = j.at("family").get<std::string>();
  if (!util::is_clean_relative(spec.path))
    return fail(
      ExitCode::corrupt, "{}: compiler path '{}' is not a clean relative path", origin, spec.path);
  auto handling = j.at("name_handling").get<std::string>();
  if (handling == "sibling")
    spec.name_handling = NameHandling::sibling;
  else if (handling == "argv0")
    spec.name_handling = NameHandling::argv0;
  else
    return fail(ExitCode::corrupt, "{}: unknown name_handling '{}'", origin, handling);
  auto verify = j.at("verify").get<std::string>();
  if (verify == "hip")
    spec.verify = VerifyKind::hip;
  else if (verify == "c-cxx")
    spec.verify = VerifyKind::c_cxx;
  else if (verify == "cuda")
    spec.verify = VerifyKind::cuda;
  else
    return fail(ExitCode::corrupt, "{}: unknown verify kind '{}'", origin, verify);
  return spec;
}

} // namespace

util::Result<Layout> parse_layout(const std::string& json_text, const std::string& origin) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail(ExitCode::corrupt, "{}: not a JSON object", origin);
  try {
    if (j.at("schema_version").get<int>() != 1)
      return fail(ExitCode::corrupt, "{}: unsupported schema_version", origin);
    Layout layout;
    layout.name = j.at("name").get<std::string>();
    layout.description = j.value("description", "");
    layout.priority = j.value("priority", 50);
    layout.detect = j.at("detect").get<std::vector<std::string>>();
    layout.identity = j.at("identity").get<std::vector<std::string>>();
    for (const auto& c : j.at("compilers")) {
      TRY_ASSIGN(auto spec, parse_compiler(c, origin));
      layout.compilers.push_back(std::move(spec));
    }
    return layout;
  } catch (const nlohmann::json::exception& e) {
    return fail(ExitCode::corrupt, "{}: {}", origin, e.what());
  }
}

util::Result<std::vector<Layout>> load_layouts(const std::string& dir) {
  TRY_ASSIGN(auto d, util::Dir::open(dir));
  TRY_ASSIGN(auto names, d.list());
  std::vector<Layout> layouts;
  for (const auto& name : names) {
    if (name.size() < 6 || !name.ends_with(".json"))
      continue;
    TRY_ASSIGN(auto text, d.read_file(name, 1 << 20));
    TRY_ASSIGN(auto layout, parse_layout(text, d.path_of(name)));
    layouts.push_back(std::move(layout));
  }
  std::stable_sort(layouts.begin(), layouts.end(), [](const Layout& a, const Layout& b) {
    return a.priority < b.priority;
  });
  if (layouts.empty())
    return fail(ExitCode::corrupt, "no toolchain layout files in {}; reinstall shimctl", dir);
  return layouts;
}

util::Result<Layout> manifest_layout(const std::string& dir, const std::string& name) {
  TRY_ASSIGN(auto layouts, load_layouts(dir));
  for (auto& layout : layouts)
    if (layout.name == name)
      return std::move(layout);
  return util::fail(util::ExitCode::corrupt,
                    "the manifest names the layout '{}', which this shimctl does not know",
                    name);
}

} // namespace shimctl::core
