#include <cstdint>
#include <doctest/doctest.h>
#include <shimctl/pieces/offload_bundle.hpp>
#include <shimctl/pieces/target_sets.hpp>
#include <string>

using namespace shimctl;

namespace {

void put_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; i++)
    out += static_cast<char>(value >> (8 * i) & 0xff);
}

// A bundle as clang-offload-bundler writes it: the host's empty entry and two code objects.
std::string bundle_of(const std::string& a, const std::string& b) {
  const std::string host = "host-x86_64-unknown-linux-gnu", ta = "hipv4-amdgcn-amd-amdhsa--gfx90a",
                    tb = "hipv4-amdgcn-amd-amdhsa--gfx942";
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  put_u64(out, 3);
  std::size_t header = out.size() + 3 * 24 + host.size() + ta.size() + tb.size();
  put_u64(out, header);
  put_u64(out, 0);
  put_u64(out, host.size());
  out += host;
  put_u64(out, header);
  put_u64(out, a.size());
  put_u64(out, ta.size());
  out += ta;
  put_u64(out, header + a.size());
  put_u64(out, b.size());
  put_u64(out, tb.size());
  out += tb;
  return out + a + b;
}

pieces::TargetSet set(std::vector<std::string> targets) {
  return { std::move(targets), { "clang++" } };
}

} // namespace

TEST_SUITE_BEGIN("pieces::derive");

TEST_CASE("an offload bundle's entries by triple, and where it ends (what follows is padding)") {
  std::string why;
  auto bytes = bundle_of("AAAA", "BBBBBB");
  auto bundle = pieces::read_offload_bundle(bytes + std::string(1, '\0'), why);
  REQUIRE(bundle);
  CHECK(bundle->end == bytes.size());
  CHECK(bundle->entries.size() == 3);
  CHECK(bundle->entries.at("hipv4-amdgcn-amd-amdhsa--gfx90a") == "AAAA");
  CHECK(bundle->entries.at("hipv4-amdgcn-amd-amdhsa--gfx942") == "BBBBBB");
  CHECK(bundle->entries.at("host-x86_64-unknown-linux-gnu").empty());
  CHECK_FALSE(pieces::read_offload_bundle("CCOB\x03\x00", why));
  CHECK(why == "its fat binary is compressed");
  CHECK_FALSE(pieces::read_offload_bundle(bytes.substr(0, bytes.size() - 2), why));
  CHECK(why == "its fat binary's entries run past its end");
  CHECK_FALSE(pieces::read_offload_bundle("\x7f"
                                          "ELF",
                                          why));
}

TEST_CASE("the earlier target sets to derive from: most targets shared first, then fewest others") {
  std::vector<pieces::TargetSet> kept{ set({ "gfx90a" }),
                                       set({ "gfx90a", "gfx942", "gfx1100" }),
                                       set({ "gfx1030" }),
                                       set({ "gfx942", "gfx90a" }),
                                       set({ "gfx90a", "gfx942", "gfx950" }) };
  auto best = pieces::sets_to_derive_from(kept, { "gfx90a", "gfx942", "gfx950" });
  // The same set (in another order too) is no earlier one; none sharing no target either.
  REQUIRE(best.size() == 3);
  CHECK(best[0].targets == std::vector<std::string>{ "gfx942", "gfx90a" });
  CHECK(best[1].targets == std::vector<std::string>{ "gfx90a", "gfx942", "gfx1100" });
  CHECK(best[2].targets == std::vector<std::string>{ "gfx90a" });
  CHECK(pieces::sets_to_derive_from(kept, { "gfx1030", "gfx1100" }).size() == 2);
}

TEST_SUITE_END();
