// rosetta-load over rosettad's HTTP/1.1 front-end: N keep-alive connections, each with K
// pipelined POSTs; answers come in request order (RFC 9112 section 9.3.2).
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

#include "load/generator/load_run.h"
#include "load/generator/pipelined_load.h"

namespace rosetta::load {
namespace {

// A head longer than this is no answer of rosettad's (it sends four fields at most).
constexpr size_t kMaxHeadBytes = 64 << 10;

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

bool EqualsLower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (Lower(s[i]) != lower[i]) return false;
  }
  return true;
}

std::string_view TrimWhitespace(std::string_view s) {  // OWS: SP and HTAB
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Whether a comma-separated field value (Connection) lists `token`, case-insensitively.
bool HasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (EqualsLower(TrimWhitespace(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

// The line at *p, without its CRLF (a bare LF too, RFC 9112 section 2.2); *p moves past it.
// False when its end has not been read yet.
bool NextLine(const char** p, const char* end, std::string_view* line) {
  const char* lf = static_cast<const char*>(std::memchr(*p, '\n', static_cast<size_t>(end - *p)));
  if (lf == nullptr) return false;
  const char* e = lf > *p && lf[-1] == '\r' ? lf - 1 : lf;
  *line = std::string_view(*p, static_cast<size_t>(e - *p));
  *p = lf + 1;
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendQueryValue(std::string* out, std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || IsDigit(c) || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      *out += c;
    } else {
      *out += '%';
      *out += kHex[u >> 4];
      *out += kHex[u & 15];
    }
  }
}

class HttpExchange {
 public:
  static constexpr bool kNumbered = false;
  static constexpr const char* kName = "HTTP";
  static constexpr std::string_view kAlpn = "http/1.1";

  // The whole request once: every request of the run is these bytes.
  explicit HttpExchange(const LoadConfig& c) {
    const bool transcode = c.op == Operation::kTranscode;
    std::string& r = request_;
    r = transcode ? "POST /v1/transcode" : "POST /v1/validate";
    if (!c.message_type.empty()) {
      r += "?message_type=";
      AppendQueryValue(&r, c.message_type);
    }
    const std::string& host = c.tls.server_name.empty() ? c.host : c.tls.server_name;
    r += " HTTP/1.1\r\nHost: ";
    r += host.find(':') != std::string::npos ? "[" + host + "]" : host;  // an IPv6 literal
    r += ":" + c.port + "\r\nContent-Type: ";
    r += codec::Info(c.from).media_type;
    if (transcode) {
      r += "\r\nAccept: ";
      r += codec::Info(c.to).media_type;
    }
    r += "\r\nContent-Length: " + std::to_string(c.payload.size()) + "\r\n\r\n";
    r += c.payload;
  }

  void AppendRequest(std::string* out, uint32_t) const { *out += request_; }

  // One response: the status line and the header fields (RFC 9112 sections 4 and 5), then a
  // Content-Length body (section 6.3); none on 204 and 304. 1xx interim responses before it
  // are skipped. rosettad never sends chunked bodies, so Transfer-Encoding is refused.
  ParseResult Parse(const char* data, size_t size, Response* r, std::string* bad) const {
    const char* p = data;
    const char* const end = data + size;
    std::string_view line;
    for (;;) {
      if (!NextLine(&p, end, &line)) return NeedHead(size, bad);
      // HTTP-version SP status-code SP [ reason-phrase ]
      if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || !IsDigit(line[7]) ||
          line[8] != ' ' || !IsDigit(line[9]) || !IsDigit(line[10]) || !IsDigit(line[11]) ||
          (line.size() > 12 && line[12] != ' ')) {
        *bad = "not an HTTP/1.x status line: '" + std::string(line.substr(0, 80)) + "'";
        return ParseResult::kBad;
      }
      const int status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
      const bool http10 = line[7] == '0';
      uint64_t length = 0;
      bool have_length = false, close = false, keep_alive = false;
      for (;;) {
        if (!NextLine(&p, end, &line)) return NeedHead(size, bad);
        if (line.empty()) break;
        const size_t colon = line.find(':');
        if (colon == 0 || colon == std::string_view::npos || line[0] == ' ' || line[0] == '\t') {
          *bad = "bad header field line: '" + std::string(line.substr(0, 80)) + "'";
          return ParseResult::kBad;
        }
        const std::string_view name = line.substr(0, colon);
        const std::string_view value = TrimWhitespace(line.substr(colon + 1));
        if (EqualsLower(name, "content-length")) {
          uint64_t v = 0;
          const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
          if (ec != std::errc() || ptr != value.data() + value.size() || value.empty() ||
              !IsDigit(value.front())) {
            *bad = "bad Content-Length '" + std::string(value.substr(0, 40)) + "'";
            return ParseResult::kBad;
          }
          if (have_length && v != length) {  // RFC 9112 section 6.3 (5)
            *bad = "Content-Length " + std::to_string(length) + " and " + std::to_string(v);
            return ParseResult::kBad;
          }
          length = v;
          have_length = true;
        } else if (EqualsLower(name, "transfer-encoding")) {
          *bad = "Transfer-Encoding '" + std::string(value.substr(0, 40)) +
                 "': only Content-Length bodies are read";
          return ParseResult::kBad;
        } else if (EqualsLower(name, "connection")) {
          close = close || HasToken(value, "close");
          keep_alive = keep_alive || HasToken(value, "keep-alive");
        }
      }
      if (status >= 100 && status < 200) {
        if (status == 101) {
          *bad = "101 Switching Protocols";
          return ParseResult::kBad;
        }
        continue;
      }
      const size_t head = static_cast<size_t>(p - data);
      if (status == 204 || status == 304) {
        length = 0;
      } else if (!have_length) {
        *bad = "HTTP " + std::to_string(status) + " without Content-Length";
        return ParseResult::kBad;
      } else if (length > (uint64_t{1} << 40)) {
        *bad = "Content-Length " + std::to_string(length);
        return ParseResult::kBad;
      }
      r->size = head + static_cast<size_t>(length);
      if (size < r->size) return ParseResult::kNeedMore;
      r->status = status;
      r->ok = status >= 200 && status < 300;
      r->close = close || (http10 && !keep_alive);
      r->body = std::string_view(p, static_cast<size_t>(length));
      return ParseResult::kWhole;
    }
  }

  // rosettad's problem+json names the error in its type, "urn:rosetta:error:CODE"
  // (service/http_server.cc); without it, "http_" and the status.
  static bool GoingAway(const Response&) { return false; }  // a draining server says close

  std::string ErrorCode(const Response& r) const {
    static constexpr std::string_view kType = "\"type\":\"urn:rosetta:error:";
    const size_t at = r.body.find(kType);
    if (at != std::string_view::npos) {
      const size_t from = at + kType.size();
      const size_t to = r.body.find('"', from);
      if (to != std::string_view::npos && to > from)
        return std::string(r.body.substr(from, to - from));
    }
    return "http_" + std::to_string(r.status);
  }

 private:
  static ParseResult NeedHead(size_t size, std::string* bad) {
    if (size <= kMaxHeadBytes) return ParseResult::kNeedMore;
    *bad = "a response head over " + std::to_string(kMaxHeadBytes) + " bytes";
    return ParseResult::kBad;
  }

  std::string request_;
};

}  // namespace

bool RunHttpLoad(LoadState& state, std::string* error) {
  return RunPipelinedLoad<HttpExchange>(state, error);
}

}  // namespace rosetta::load
