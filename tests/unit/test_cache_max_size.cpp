// install's --max-size checked per cache tool before any work (Tool::check_max_size,
// cache/max_size.*): ccache's documented size grammar (4.7 and 4.14 read the same forms), sccache's
// whole numbers.
#include <doctest/doctest.h>
#include <shimctl/cache/tool.hpp>
#include <string>

using namespace shimctl;

namespace {

// The refusal of SIZE for KIND, or "" when it is accepted; every refusal is exit 2.
std::string refusal(const std::string& kind, const std::string& size) {
  const auto* tool = cache::tool_named(kind);
  REQUIRE(tool);
  auto s = tool->check_max_size(size);
  if (s)
    return "";
  CHECK(s.error().code == util::ExitCode::usage);
  return s.error().message;
}

} // namespace

TEST_SUITE_BEGIN("cache::MaxSize");

TEST_CASE("ccache: a number, then k/K/M/G/T, i, B") {
  for (const char* ok : { "5G",
                          "500M",
                          "10",
                          "0",
                          "1.5G",
                          ".5G",
                          "5.G",
                          "10k",
                          "10K",
                          "1T",
                          "5Gi",
                          "5GiB",
                          "5GB",
                          "5KiB",
                          "5Mi",
                          "1Ti",
                          "5ki" })
    CHECK_MESSAGE(refusal("ccache", ok).empty(), ok);
  // ccache itself reads some of these (5Gfoo as 5G, 1e3 as 1000G, nan as 9 EB): not shimctl.
  for (const char* bad : { "foo",
                           "",
                           "G",
                           "5g",
                           "-1",
                           "5 G",
                           " 5G",
                           "5B",
                           "5iG",
                           "5Gfoo",
                           "1e3",
                           "0x10",
                           "nan",
                           "inf",
                           "5GiBB",
                           "." })
    CHECK_MESSAGE(!refusal("ccache", bad).empty(), bad);
  CHECK(refusal("ccache", "foo") ==
        "--max-size: 'foo' is not a size (e.g. 5G, 500M, 1.5G, 5GiB; 0 for no limit)");
}

TEST_CASE("sccache: a whole number with K, M, G or T") {
  for (const char* ok : { "5G", "500M", "10", "1T", "512K" })
    CHECK_MESSAGE(refusal("sccache", ok).empty(), ok);
  for (const char* bad : { "foo", "5Gi", "1.5G", "5GB", "", "G", "5g" })
    CHECK_MESSAGE(!refusal("sccache", bad).empty(), bad);
  CHECK(refusal("sccache", "5Gi") == "--max-size: '5Gi' is not a size sccache reads (a whole "
                                     "number with K, M, G or T, e.g. 5G, 500M)");
}
