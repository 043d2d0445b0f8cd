#pragma once

#include <cstddef>
#include <cstdint>

#include "fixed/fixed_layout.h"
#include "rosetta/codec/output.h"

namespace rosetta::codec {

// Writes `records` records at records_at (back to back) in `format` (1 json, 2 cbor,
// 3 msgpack; compact JSON, preferred-serialization CBOR), each followed by a newline when
// `lines` (JSON). False when a record needs the general path (see fixed_encoder.cc) or the
// output has no room: the caller cuts the output back to where it was and runs that path.
bool EncodeFixed(const FixedLayout& layout, uint8_t format, const uint8_t* records_at,
                 size_t records, bool lines, OutputBuffer& out);

}  // namespace rosetta::codec
