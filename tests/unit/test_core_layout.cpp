#include "temp_dir.hpp"

#include <algorithm>
#include <shimctl/core/layout.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/util/dir.hpp>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

namespace {

const char* valid_layout = R"({
  "schema_version": 1,
  "name": "toy",
  "description": "a toy toolchain",
  "priority": 20,
  "detect": ["bin/toycc"],
  "compilers": [
    {"path": "bin/toycc", "family": "clang", "name_handling": "argv0", "verify": "c-cxx"},
    {"path": "bin/toyhip", "family": "hipcc", "name_handling": "sibling", "verify": "hip"}
  ],
  "identity": ["bin/toycc", "lib/*.bc"]
})";

std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string parse_error(const std::string& text) {
  auto layout = core::parse_layout(text, "toy.json");
  REQUIRE_FALSE(layout);
  CHECK(layout.error().code == util::ExitCode::corrupt);
  return layout.error().message;
}

core::Layout find_layout(const std::vector<core::Layout>& layouts, const std::string& name) {
  auto it = std::find_if(
    layouts.begin(), layouts.end(), [&](const core::Layout& l) { return l.name == name; });
  REQUIRE(it != layouts.end());
  return *it;
}

bool has(const std::vector<std::string>& v, const std::string& item) {
  return std::find(v.begin(), v.end(), item) != v.end();
}

} // namespace

TEST_SUITE_BEGIN("core::Layout");

TEST_CASE("parse_layout reads every field") {
  auto layout = core::parse_layout(valid_layout, "toy.json");
  REQUIRE(layout);
  CHECK(layout->name == "toy");
  CHECK(layout->description == "a toy toolchain");
  CHECK(layout->priority == 20);
  CHECK(layout->detect == std::vector<std::string>{ "bin/toycc" });
  CHECK(layout->identity == std::vector<std::string>{ "bin/toycc", "lib/*.bc" });
  REQUIRE(layout->compilers.size() == 2);
  CHECK(layout->compilers[0].path == "bin/toycc");
  CHECK(layout->compilers[0].family == "clang");
  CHECK(layout->compilers[0].name_handling == core::NameHandling::argv0);
  CHECK(layout->compilers[0].verify == core::VerifyKind::c_cxx);
  CHECK(layout->compilers[1].name_handling == core::NameHandling::sibling);
  CHECK(layout->compilers[1].verify == core::VerifyKind::hip);
}

TEST_CASE("parse_layout defaults description and priority") {
  auto text =
    with(with(valid_layout, "\"description\": \"a toy toolchain\",", ""), "\"priority\": 20,", "");
  auto layout = core::parse_layout(text, "toy.json");
  REQUIRE(layout);
  CHECK(layout->description.empty());
  CHECK(layout->priority == 50);
}

TEST_CASE("parse_layout errors name the file and the problem") {
  CHECK(parse_error("{ not json") == "toy.json: not a JSON object");
  CHECK(parse_error("[1, 2]") == "toy.json: not a JSON object");
  CHECK(parse_error(with(valid_layout, "\"schema_version\": 1", "\"schema_version\": 2")) ==
        "toy.json: unsupported schema_version");
  CHECK(parse_error(with(valid_layout, "\"path\": \"bin/toycc\"", "\"path\": \"../bin/toycc\"")) ==
        "toy.json: compiler path '../bin/toycc' is not a clean relative path");
  CHECK(parse_error(with(valid_layout, "\"path\": \"bin/toycc\"", "\"path\": \"/usr/bin/cc\"")) ==
        "toy.json: compiler path '/usr/bin/cc' is not a clean relative path");
  CHECK(parse_error(
          with(valid_layout, "\"name_handling\": \"argv0\"", "\"name_handling\": \"rename\"")) ==
        "toy.json: unknown name_handling 'rename'");
  CHECK(parse_error(with(valid_layout, "\"verify\": \"hip\"", "\"verify\": \"fortran\"")) ==
        "toy.json: unknown verify kind 'fortran'");
  auto missing = parse_error(with(valid_layout, "\"name\": \"toy\",", ""));
  CHECK(missing.starts_with("toy.json: "));
  CHECK(missing.find("'name'") != std::string::npos);
  auto wrong_type =
    parse_error(with(valid_layout, "\"detect\": [\"bin/toycc\"]", "\"detect\": \"bin/toycc\""));
  CHECK(wrong_type.starts_with("toy.json: "));
}

TEST_CASE("load_layouts: sorted by priority, errors name the file") {
  auto root = make_temp_dir();
  SUBCASE("an empty directory") {
    auto layouts = core::load_layouts(root);
    REQUIRE_FALSE(layouts);
    CHECK(layouts.error().message ==
          fmt::format("no toolchain layout files in {}; reinstall shimctl", root));
  }
  SUBCASE("a broken file") {
    write_text(root + "/a.json", valid_layout);
    write_text(root + "/b.json", "{}");
    auto layouts = core::load_layouts(root);
    REQUIRE_FALSE(layouts);
    CHECK(layouts.error().message.starts_with(root + "/b.json: "));
  }
  SUBCASE("priority order, then file name; other files ignored") {
    write_text(root + "/z.json", with(with(valid_layout, "\"toy\"", "\"z\""), "20", "5"));
    write_text(root + "/b.json", with(valid_layout, "\"toy\"", "\"b\""));
    write_text(root + "/a.json", with(valid_layout, "\"toy\"", "\"a\""));
    write_text(root + "/README.md", "not a layout");
    auto layouts = core::load_layouts(root);
    REQUIRE(layouts);
    REQUIRE(layouts->size() == 3);
    CHECK((*layouts)[0].name == "z");
    CHECK((*layouts)[1].name == "a");
    CHECK((*layouts)[2].name == "b");
  }
}

TEST_CASE("the layouts shipped in manifests/layouts load and are sane") {
  auto layouts = core::load_layouts(std::string(SHIMCTL_SOURCE_DIR) + "/manifests/layouts");
  REQUIRE(layouts);
  REQUIRE(layouts->size() >= 3);
  for (const auto& layout : *layouts) {
    CAPTURE(layout.name);
    CHECK_FALSE(layout.detect.empty());
    CHECK_FALSE(layout.compilers.empty());
    CHECK_FALSE(layout.identity.empty());
    for (const auto& d : layout.detect)
      CHECK(util::is_clean_relative(d));
    for (const auto& pattern : layout.identity)
      CHECK(util::is_clean_relative(pattern));
    // Every wrapped compiler is itself an identity input (by its .real, once wrapped).
    for (const auto& c : layout.compilers) {
      bool covered = has(layout.identity, c.path) || c.path.ends_with("++") ||
                     c.path.find("amdclang") != std::string::npos;
      CHECK_MESSAGE(covered, c.path << " is not an identity input");
    }
  }
  // TheRock is more specific than rocm: detected first.
  CHECK((*layouts)[0].name == "therock");

  const auto& rocm = find_layout(*layouts, "rocm");
  CHECK(rocm.detect == std::vector<std::string>{ "bin/hipcc" });
  CHECK(rocm.compilers[0].path == "bin/hipcc");
  CHECK(rocm.compilers[0].family == "hipcc");
  CHECK(rocm.compilers[0].name_handling == core::NameHandling::sibling);
  CHECK(rocm.compilers[0].verify == core::VerifyKind::hip);
  for (const auto& input : { "bin/hipcc",
                             "llvm/bin/clang",
                             "llvm/bin/lld",
                             "llvm/bin/clang-offload-bundler",
                             "amdgcn/bitcode/*.bc",
                             "share/hip/version",
                             "bin/.hipVersion" })
    CHECK_MESSAGE(has(rocm.identity, input), input);

  const auto& cuda = find_layout(*layouts, "cuda");
  CHECK(cuda.compilers.size() == 1);
  CHECK(cuda.compilers[0].family == "nvcc");
  CHECK(cuda.compilers[0].verify == core::VerifyKind::cuda);
  for (const auto& input : { "bin/nvcc",
                             "bin/ptxas",
                             "bin/fatbinary",
                             "bin/nvlink",
                             "nvvm/bin/cicc",
                             "nvvm/libdevice/*.bc",
                             "version.json" })
    CHECK_MESSAGE(has(cuda.identity, input), input);

  const auto& therock = find_layout(*layouts, "therock");
  for (const auto& c : therock.compilers)
    CHECK(c.path.starts_with("_rocm_sdk_devel/"));
}

TEST_CASE("rocm identity globs find device libraries in every known place") {
  auto layouts = core::load_layouts(std::string(SHIMCTL_SOURCE_DIR) + "/manifests/layouts");
  REQUIRE(layouts);
  const auto& rocm = find_layout(*layouts, "rocm");
  auto p = make_temp_dir();
  // ROCm <= 5, ROCm 6 (resource dir with lib/), ROCm 7 (no lib/). A distribution's places
  // (Debian: /usr/lib/<triplet>/amdgcn, /usr/lib/llvm-N/lib/clang/N/amdgcn) come from
  // hipcc's job list (identity/job_inputs.hpp), not from globs.
  std::vector<std::string> bitcode{ "amdgcn/bitcode/ocml.bc",
                                    "lib/llvm/lib/clang/19/lib/amdgcn/bitcode/ocml.bc",
                                    "lib/llvm/lib/clang/21/amdgcn/bitcode/ocml.bc" };
  for (const auto& bc : bitcode)
    write_text(p + "/" + bc, bc);
  write_text(p + "/bin/hipcc", "#!/bin/sh\n");
  auto files = identity::identity_files(p, rocm.identity, { "bin/hipcc" });
  for (const auto& bc : bitcode)
    CHECK_MESSAGE(std::find(files.begin(), files.end(), bc) != files.end(), bc);
  CHECK(std::find(files.begin(), files.end(), "bin/hipcc.real") != files.end());
}

TEST_SUITE_END();
