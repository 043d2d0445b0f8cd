#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rosetta::codec {

// RFC 3629 well-formedness (no overlongs, no surrogates, nothing past U+10FFFF).
bool ValidUtf8(std::string_view s);
// Offset of the first byte that does not begin a well-formed sequence (s.size() when s is
// valid). Linear: for error reports, which must not cost more than the input.
size_t InvalidUtf8Offset(std::string_view s);

}  // namespace rosetta::codec
