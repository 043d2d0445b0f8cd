#include "codec_test_support.h"

#include <ostream>
#include <stdexcept>

namespace rosetta::codec::testing {
namespace {

int Nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  throw std::invalid_argument("bad hex digit");
}

}  // namespace

std::string Hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    if (c == ' ' || c == '\n') continue;
    if (hi < 0) {
      hi = Nibble(c);
    } else {
      out.push_back(static_cast<char>(hi << 4 | Nibble(c)));
      hi = -1;
    }
  }
  if (hi >= 0) throw std::invalid_argument("odd number of hex digits");
  return out;
}

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    out.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kDigits[static_cast<uint8_t>(c) & 15]);
  }
  return out;
}

Result RunTranscode(Format from, Format to, std::string_view input, const Limits& limits, const MappingOptions& options,
           bool padded) {
  std::string buffer(input);
  buffer.append(kInputPadding, '\0');
  TranscodeRequest request;
  request.from = from;
  request.to = to;
  request.input = std::string_view(buffer.data(), input.size());
  request.input_padding = padded ? kInputPadding : 0;
  request.limits = limits;
  request.options = options;
  OutputBuffer out;
  Result r;
  {
    rosetta::testing::HeapWatch watch;
    r.status = Transcode(request, out, &r.stats);
    r.heap = watch.Stop();
  }
  r.out = to == Format::kJson ? std::string(out.view()) : ToHex(out.view());
  return r;
}

Result Check(Format from, std::string_view input, const Limits& limits, const MappingOptions& options) {
  std::string buffer(input);
  buffer.append(kInputPadding, '\0');
  TranscodeRequest request;
  request.from = from;
  request.input = std::string_view(buffer.data(), input.size());
  request.input_padding = kInputPadding;
  request.limits = limits;
  request.options = options;
  Result r;
  {
    rosetta::testing::HeapWatch watch;
    r.status = Validate(request, &r.stats);
    r.heap = watch.Stop();
  }
  return r;
}

}  // namespace rosetta::codec::testing

namespace rosetta::codec {
void PrintTo(const Status& s, std::ostream* os) {
  *os << CodeName(s.code) << " at byte " << s.offset << " (" << s.path << "): " << s.message;
}
}  // namespace rosetta::codec
