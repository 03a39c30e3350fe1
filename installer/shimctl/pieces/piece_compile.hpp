// A HIP object for its GPU targets built from one piece per target, each piece a compile
// of its own that the cache tool keys and keeps (so a new target set reuses the targets it
// had), then the driver's own bundler and the host compile. Runs on the cache tool's miss path
// only (the shim sends it there); any doubt, and the compile runs whole, as the user gave it.
#pragma once
#include <shimctl/pieces/piece_request.hpp>

namespace shimctl::pieces {

[[nodiscard]] PieceResult compile_from_pieces(const PieceRequest& request);

} // namespace shimctl::pieces
