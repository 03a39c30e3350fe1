// One target's piece under the new offload driver: its image, made by the very job the linker
// wrapper runs for that target in a one-step compile (replayed: the target's device cc1, the
// packager, the wrapper's --dry-run for its image job). A --cuda-device-only compile of the same
// arguments takes another path (direct lld, llvm#211675) and its code object differs.
// compile_from_pieces sends each piece through the cache tool as a --cuda-device-only compile
// with SHIMCTL_PIECE_IMAGE=1 (and a cache key of its own); the shim under the tool hands that
// compile, on a miss, to `shimctl compile-pieces`, which comes here.
#pragma once
#include <shimctl/pieces/piece_request.hpp>

namespace shimctl::pieces {

// The environment variable that asks for an image (value "1"), and what the pieces' cache key
// gets appended (ccache's compiler-check string, sccache's buster).
inline constexpr const char* piece_image_env = "SHIMCTL_PIECE_IMAGE";
inline constexpr const char* piece_image_key = ";piece=linker-wrapper-image";

// Whether REQUEST is a piece's compile that asks for an image.
[[nodiscard]] bool is_piece_image_call(const PieceRequest& request);

// Writes the image to the call's -o and returns 0; else says why on stderr and returns non-zero
// (the piece fails, its compile runs whole): never the call as given, whose object differs.
[[nodiscard]] int compile_piece_image(const PieceRequest& request);

} // namespace shimctl::pieces
