#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rosetta::codec::schema {

// RFC 3986 section 5.2: the target of `ref` against `base` (both URI references; base
// absolute or empty). The fragment is kept as written.
std::string ResolveUri(std::string_view base, std::string_view ref);

// "abs#frag" -> ("abs", "frag"); has_fragment tells "x#" from "x".
std::string_view WithoutFragment(std::string_view uri);
std::string_view FragmentOf(std::string_view uri, bool* has_fragment = nullptr);

// Percent-decoding (RFC 3986 2.1) of a fragment; false when malformed.
bool PercentDecode(std::string_view in, std::string* out);

// "/a~1b/c" -> {"a/b", "c"} (RFC 6901); false when not a JSON Pointer.
bool SplitPointer(std::string_view pointer, std::vector<std::string>* tokens);
// A token escaped for a JSON Pointer ("~" -> "~0", "/" -> "~1").
std::string EscapePointerToken(std::string_view token);

}  // namespace rosetta::codec::schema
