#pragma once

#include <string_view>

#include "rosetta/codec/output.h"

namespace rosetta::codec {

// Writes s as a JSON string: quotes, and the escapes RFC 8259 section 7 requires ('"',
// '\\', U+0000..U+001F; \b \f \n \r \t by name, the others as \u00XX); everything else,
// UTF-8 included, is copied. The caller has made room for s.size() + 2 bytes; an escape
// makes the room it needs. False when that room cannot be had (Ensure refused it: over
// max_output_bytes or the budget), with the output left incomplete.
bool WriteJsonString(OutputBuffer& out, std::string_view s);

}  // namespace rosetta::codec
