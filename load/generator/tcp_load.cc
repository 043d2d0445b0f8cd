// rosetta-load over the TCP protocol (DESIGN.md "TCP protocol"): N connections, each with
// K pipelined requests; responses come in request order and carry the request's id.
#include <string>

#include "load/generator/load_run.h"
#include "load/generator/pipelined_load.h"
#include "rosetta/codec/status.h"

namespace rosetta::load {
namespace {

uint32_t Be32(const char* p) {
  auto* u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t{u[0]} << 24 | uint32_t{u[1]} << 16 | uint32_t{u[2]} << 8 | u[3];
}
void SetBe32(char* p, uint32_t v) {
  p[0] = static_cast<char>(v >> 24);
  p[1] = static_cast<char>(v >> 16);
  p[2] = static_cast<char>(v >> 8);
  p[3] = static_cast<char>(v);
}

class TcpFrames {
 public:
  static constexpr bool kNumbered = true;
  static constexpr const char* kName = "TCP";
  static constexpr std::string_view kAlpn = {};  // the frame protocol has no ALPN name

  // The request frame once; only its request_id (bytes 6..9) changes per request.
  explicit TcpFrames(const LoadConfig& c) {
    const size_t body = 10 + c.message_type.size() + c.payload.size();
    frame_.assign(4 + 10, '\0');
    SetBe32(frame_.data(), static_cast<uint32_t>(body));
    frame_[4] = 1;                                      // version
    frame_[5] = c.op == Operation::kTranscode ? 1 : 2;  // op
    frame_[10] = static_cast<char>(c.from);
    frame_[11] = static_cast<char>(c.op == Operation::kTranscode ? c.to : c.from);
    frame_[12] = static_cast<char>(c.message_type.size() >> 8);
    frame_[13] = static_cast<char>(c.message_type.size());
    frame_ += c.message_type;
    frame_ += c.payload;
  }

  void AppendRequest(std::string* out, uint32_t id) const {
    const size_t at = out->size();
    *out += frame_;
    SetBe32(out->data() + at + 6, id);
  }

  // A response frame: length, version, status, request_id, then the output or the message.
  ParseResult Parse(const char* data, size_t size, Response* r, std::string* bad) const {
    if (size < 4) return ParseResult::kNeedMore;
    const size_t len = Be32(data);
    if (len < 6) {
      *bad = "response frame of " + std::to_string(len) + " bytes";
      return ParseResult::kBad;
    }
    r->size = 4 + len;
    if (size < r->size) return ParseResult::kNeedMore;
    r->status = static_cast<uint8_t>(data[5]);
    r->ok = r->status == 0;
    r->id = Be32(data + 6);
    r->body = std::string_view(data + 10, len - 6);
    return ParseResult::kWhole;
  }

  // docs/tcp-protocol.md "Drain": the server answered up to r.id and reads nothing more.
  static constexpr int kGoingAwayStatus = 20;
  static bool GoingAway(const Response& r) { return r.status == kGoingAwayStatus; }

  std::string ErrorCode(const Response& r) const {
    if (r.status == kGoingAwayStatus) return "going_away";
    if (r.status < codec::kErrorCodeCount)
      return std::string(codec::CodeName(static_cast<codec::ErrorCode>(r.status)));
    return "status_" + std::to_string(r.status);
  }

 private:
  std::string frame_;
};

}  // namespace

bool RunTcpLoad(LoadState& state, std::string* error) {
  return RunPipelinedLoad<TcpFrames>(state, error);
}

}  // namespace rosetta::load
