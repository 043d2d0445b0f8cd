#include "json/json_escape.h"

namespace rosetta::codec {

bool WriteJsonString(OutputBuffer& out, std::string_view s) {
  using namespace json_escape;
  out.Put('"');
  const char* p = s.data();
  const char* const end = p + s.size();
  for (;;) {
    const char* run = p;
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      if (MayNeedEscape(w)) break;
      p += 8;
    }
    while (p < end && kEscape[static_cast<uint8_t>(*p)] == 0) ++p;
    out.Append(run, p - run);
    if (p == end) break;
    // An escape takes up to 6 bytes for 1: room for it, the rest and the quote (first a
    // bound, then exactly what this escape needs, so an output that fits exactly fits).
    const uint8_t c = static_cast<uint8_t>(*p++);
    const char e = kEscape[c];
    const size_t rest = static_cast<size_t>(end - p) + 1;
    if (!out.Ensure(6 + rest) && !out.Ensure((e == 'u' ? 6 : 2) + rest)) return false;
    out.Put('\\');
    if (e == 'u') {
      char u[5] = {'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out.Append(u, 5);
    } else {
      out.Put(e);
    }
  }
  out.Put('"');
  return true;
}

}  // namespace rosetta::codec
