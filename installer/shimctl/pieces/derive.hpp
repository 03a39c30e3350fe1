// An object for a new GPU target set, derived from the object of an earlier target set of the
// same TU (issue 44): the cache keeps whole objects only, once each, and adding a target compiles
// only that target's device code.
//
// The earlier sets come from target_sets.hpp. Their object is looked up through the cache tool
// with the earlier call's own arguments (SHIMCTL_LOOKUP_ONLY=1: on a miss the shim under the
// tool compiles nothing and fails, so nothing is stored). From its .hip_fatbin (an offload
// bundle) come the code objects of the targets both sets have; the others are compiled as the
// cache tool would compile a piece on a miss, but stored nowhere. The bundler runs as the driver
// (or its linker wrapper) runs it, and the bundle replaces the earlier object's .hip_fatbin (the
// host code depends on the targets only through it: the shim's fixed -cuid=). A TU that registers
// no kernel has no .hip_fatbin: its object is the earlier one. The first derived object of each
// toolchain is checked against the one-step compile (piece_verdict.hpp).
#pragma once
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <shimctl/util/scratch.hpp>

namespace shimctl::pieces {

// True when CALL's object is derived rather than split into stored pieces: without -fgpu-rdc
// (whose pieces are kept: piece_compile.hpp), unless SHIMCTL_PIECES_STORE=1 asks for stored pieces.
[[nodiscard]] bool derives(const OffloadCall& call);

// CALL's object derived from an earlier target set's in the cache, or why not (whole_reason: the
// call then runs whole). COUNTS gets what it did; SCRATCH holds its files.
[[nodiscard]] PieceResult derive_object(const PieceRequest& request,
                                        const OffloadCall& call,
                                        const util::ScratchDir& scratch,
                                        PieceCounts& counts);

} // namespace shimctl::pieces
