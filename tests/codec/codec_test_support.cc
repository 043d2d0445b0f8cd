#include "codec_test_support.h"

#include <ostream>
#include <stdexcept>

namespace rosetta::codec::testing {
namespace {}  // namespace

Result RunTranscode(Format from, Format to, std::string_view input, const Limits& limits,
                    const MappingOptions& options, bool padded) {
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
    rosetta::heap::Watch watch;
    r.status = Transcode(request, out, &r.stats);
    r.heap = watch.Stop();
  }
  r.out = to == Format::kJson ? std::string(out.view()) : ToHex(out.view());
  return r;
}

Result Check(Format from, std::string_view input, const Limits& limits,
             const MappingOptions& options) {
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
    rosetta::heap::Watch watch;
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
