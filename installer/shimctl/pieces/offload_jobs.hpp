// The driver's own plan of a HIP compile (`clang -###`), recognised as the old offload
// driver's (per target a device cc1 and, without -fgpu-rdc, an lld link; one
// clang-offload-bundler; one host cc1) or the new one's (new_driver.hpp). Which driver it is
// comes from the plan, never from a flag. Anything else (a compressing old bundler, another
// job) is not recognised: the compile runs whole.
#pragma once
#include <optional>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_plan.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

// JOBS of a compile for TARGETS (as the call names them), RDC as the call says.
[[nodiscard]] OffloadPlan recognise_plan(const std::vector<Job>& jobs,
                                         const std::vector<std::string>& targets,
                                         bool rdc);

// REQUEST's plan, asked of its driver (`-###`) and recognised for CALL; the new driver's bundle
// inputs are its packager's images, in its order, until its linker wrapper is asked. nullopt:
// why the call runs whole, in WHY.
[[nodiscard]] std::optional<OffloadPlan> asked_plan(const PieceRequest& request,
                                                    const OffloadCall& call,
                                                    std::string& why);

} // namespace shimctl::pieces
