#pragma once

#include <cstdint>
#include <string_view>

namespace rosetta::codec {

// RFC 3629 well-formedness (no overlongs, no surrogates, nothing past U+10FFFF).
bool ValidUtf8(std::string_view s);

}  // namespace rosetta::codec
