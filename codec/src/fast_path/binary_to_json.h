#pragma once

#include <string_view>

#include "core/context.h"
#include "rosetta/codec/output.h"

namespace rosetta::codec {

// CBOR -> JSON and MessagePack -> JSON for what most documents are made of: definite-
// length arrays and maps with text keys, integers, text strings, floats, true, false and
// null. One loop reads an item and writes its JSON at once, with a small stack of counts:
// none of the general path's per-item bookkeeping (the error path's keys, the writer's own
// stack, tag state).
//
// Returns true with the whole document written. Returns false on anything else (CBOR: a
// tag, a byte string, an indefinite length, a simple value or undefined, -2^64;
// MessagePack: bin, ext, timestamps; either: a non-text key, a non-finite float), on
// malformed input and on any limit: the caller then discards what was written, restores
// the budget and runs the general reader into JsonWriter, which gives the exact output,
// or the exact error code, offset and path. The limits are those of the general path
// (max_depth, max_items, max_string_bytes, max_output_bytes, the budget, duplicate keys).
bool FastCborToJson(Context& ctx, std::string_view input, OutputBuffer& out);
bool FastMsgpackToJson(Context& ctx, std::string_view input, OutputBuffer& out);

}  // namespace rosetta::codec
