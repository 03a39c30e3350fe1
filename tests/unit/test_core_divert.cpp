#include <algorithm>
#include <doctest/doctest.h>
#include <shimctl/commands/steps.hpp>
#include <shimctl/core/transaction.hpp>

using namespace shimctl;

TEST_SUITE_BEGIN("core::divert");

namespace {

core::Manifest two_compilers(bool divert_clang) {
  core::Manifest m;
  m.prefix = "/opt/rocm";
  m.layout = "rocm";
  for (const char* path : { "bin/hipcc", "llvm/bin/clang" }) {
    core::WrappedCompiler c;
    c.path = path;
    c.real = std::string(path) + ".real";
    m.compilers.push_back(c);
  }
  if (divert_clang)
    m.compilers[1].diverted_by = "dpkg";
  return m;
}

std::vector<std::string> kinds_and_paths(const std::vector<core::Step>& steps) {
  std::vector<std::string> out;
  auto json = core::journal_to_json({ "x", core::Recovery::undo, "", steps });
  auto back = core::journal_from_json(json);
  REQUIRE(back);
  for (const auto& s : back->steps)
    out.push_back(s.describe());
  return out;
}

std::size_t index_of(const std::vector<std::string>& v, const std::string& what) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), what) - v.begin());
}

} // namespace

TEST_CASE("install: divert after link_real, before place_shim, only for diverted compilers") {
  auto steps = kinds_and_paths(commands::install_steps(two_compilers(true)));
  auto divert = index_of(steps, "dpkg-divert llvm/bin/clang to llvm/bin/clang.real");
  REQUIRE(divert < steps.size());
  CHECK(index_of(steps, "keep the original llvm/bin/clang as llvm/bin/clang.real") < divert);
  CHECK(divert < index_of(steps, "put the shim at llvm/bin/clang"));
  CHECK(divert < index_of(steps, "put the shim at bin/hipcc"));
  CHECK(index_of(steps, "dpkg-divert bin/hipcc to bin/hipcc.real") == steps.size());

  auto plain = kinds_and_paths(commands::install_steps(two_compilers(false)));
  CHECK(std::none_of(
    plain.begin(), plain.end(), [](const std::string& s) { return s.starts_with("dpkg-divert"); }));
}

TEST_CASE("rollback: the diversion goes before the restore") {
  auto steps = kinds_and_paths(commands::rollback_steps(two_compilers(true)));
  auto undivert = index_of(steps, "remove the dpkg diversion of llvm/bin/clang");
  REQUIRE(undivert < steps.size());
  CHECK(undivert < index_of(steps, "restore the original llvm/bin/clang"));
  CHECK(undivert < index_of(steps, "restore the original bin/hipcc"));
  CHECK(index_of(steps, "remove the dpkg diversion of bin/hipcc") == steps.size());
}

TEST_SUITE_END();
