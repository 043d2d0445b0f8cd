#pragma once

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "rosetta/v1/transcoder.grpc.pb.h"
#include "service/config.h"
#include "service/server.h"

// What the rosettad tests share: an in-process Server on port 0, a blocking TCP client
// for the frame protocol, a /metrics scraper, and polling with a deadline (the tests
// wait for conditions, never for a fixed time).
namespace rosetta::service::testing {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Every listener on a free loopback port; timeouts short enough for a fast suite.
inline ServiceConfig TestConfig() {
  ServiceConfig c;
  c.grpc_listen = c.tcp_listen = c.http_listen = c.metrics_listen = "127.0.0.1:0";
  c.io_threads = 2;
  c.tcp_frame_timeout_ms = 5000;
  c.tcp_idle_timeout_ms = 10000;
  c.tcp_linger_ms = 200;
  c.drain_timeout_ms = 3000;
  return c;
}

// Polls `done` every 2 ms until it holds or `timeout` passes; returns its last answer.
template <class Pred>
bool WaitUntil(Pred done, milliseconds timeout = milliseconds(5000)) {
  const auto until = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() >= until) return done();
    std::this_thread::sleep_for(milliseconds(2));
  }
  return true;
}

inline double MillisSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A test that runs one Server; TearDown drains it.
class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { signal(SIGPIPE, SIG_IGN); }
  void TearDown() override {
    if (server_) server_->Drain();
    server_.reset();
  }
  ::testing::AssertionResult StartServer(ServiceConfig config = TestConfig()) {
    server_ = std::make_unique<Server>(std::move(config));
    std::string error;
    if (!server_->Start(&error)) return ::testing::AssertionFailure() << "Server::Start: " << error;
    return ::testing::AssertionSuccess();
  }
  Server& server() { return *server_; }

  std::unique_ptr<Server> server_;
};

// ---- bytes

inline std::string Hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi << 4 | v));
      hi = -1;
    }
  }
  return out;
}

// Concatenation in one allocation (and clear of GCC 12's -Wrestrict false positives on
// "literal" + std::string chains).
inline std::string Cat(std::initializer_list<std::string_view> parts) {
  size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p);
  return out;
}

inline std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

inline void PutBe32(std::string& s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>(v >> shift));
}

inline uint32_t Be32(std::string_view s) {
  auto b = [&](int i) { return uint32_t{static_cast<uint8_t>(s[i])}; };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// ---- the TCP frame protocol (DESIGN.md "TCP protocol")

enum TcpOp : uint8_t { kTranscode = 1, kValidate = 2, kPing = 3, kSetLimits = 4, kSetOptions = 5 };
inline constexpr uint8_t kJson = 1, kCbor = 2, kMsgpack = 3;

// length:u32 then body
inline std::string Framed(std::string_view body) {
  std::string f;
  PutBe32(f, static_cast<uint32_t>(body.size()));
  f.append(body);
  return f;
}

// version op request_id input output type_len type payload, framed.
inline std::string Frame(uint8_t op, uint32_t id, uint8_t input, uint8_t output,
                         std::string_view payload, std::string_view message_type = {},
                         uint8_t version = 1) {
  std::string body;
  body.push_back(static_cast<char>(version));
  body.push_back(static_cast<char>(op));
  PutBe32(body, id);
  body.push_back(static_cast<char>(input));
  body.push_back(static_cast<char>(output));
  body.push_back(static_cast<char>(message_type.size() >> 8));
  body.push_back(static_cast<char>(message_type.size()));
  body.append(message_type);
  body.append(payload);
  return Framed(body);
}

struct TcpResponse {
  uint8_t version = 0;
  uint8_t status = 0;
  uint32_t id = 0;
  std::string data;
  bool operator==(const TcpResponse&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const TcpResponse& r) {
  return os << "{version " << int{r.version} << " status " << int{r.status} << " id " << r.id
            << " data \"" << (r.data.size() > 80 ? r.data.substr(0, 80) + "..." : r.data) << "\"}";
}

// Parses a whole byte stream of response frames; false if it does not end on a frame.
inline bool ParseResponses(std::string_view bytes, std::vector<TcpResponse>* out) {
  while (!bytes.empty()) {
    if (bytes.size() < 4) return false;
    const uint32_t len = Be32(bytes);
    if (len < 6 || bytes.size() < 4 + size_t{len}) return false;
    std::string_view body = bytes.substr(4, len);
    out->push_back({static_cast<uint8_t>(body[0]), static_cast<uint8_t>(body[1]),
                    Be32(body.substr(2)), std::string(body.substr(6))});
    bytes.remove_prefix(4 + len);
  }
  return true;
}

// How a connection ended, as the client saw it.
struct Ending {
  bool closed = false;  // recv returned 0 (or a reset) before the deadline
  bool reset = false;   // ECONNRESET rather than an orderly close
  std::string extra;    // bytes that arrived before the close
};

// A blocking client socket with deadlines on every read.
class TcpClient {
 public:
  explicit TcpClient(const std::string& address) {
    const size_t colon = address.rfind(':');
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
    inet_pton(AF_INET, address.substr(0, colon).c_str(), &sa.sin_addr);
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
      connect_errno_ = errno;
      return;
    }
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      connect_errno_ = errno;
      ::close(fd_);
      fd_ = -1;
      return;
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~TcpClient() { Close(); }
  TcpClient(TcpClient&& o) noexcept
      : fd_(std::exchange(o.fd_, -1)), connect_errno_(o.connect_errno_) {}
  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  int connect_errno() const { return connect_errno_; }
  int fd() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Exactly n bytes before the deadline, or nullopt (timeout, close or error).
  std::optional<std::string> Recv(size_t n, milliseconds timeout = milliseconds(5000)) {
    const auto until = Clock::now() + timeout;
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      if (!WaitReadable(until)) return std::nullopt;
      ssize_t r = ::recv(fd_, out.data() + got, n - got, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      got += static_cast<size_t>(r);
    }
    return out;
  }

  std::optional<TcpResponse> Read(milliseconds timeout = milliseconds(5000)) {
    const auto until = Clock::now() + timeout;
    auto prefix = Recv(4, timeout);
    if (!prefix) return std::nullopt;
    const uint32_t len = Be32(*prefix);
    if (len < 6) return std::nullopt;
    auto body =
        Recv(len, std::chrono::duration_cast<milliseconds>(until - Clock::now()) + milliseconds(1));
    if (!body) return std::nullopt;
    std::string_view b = *body;
    return TcpResponse{static_cast<uint8_t>(b[0]), static_cast<uint8_t>(b[1]), Be32(b.substr(2)),
                       std::string(b.substr(6))};
  }

  // One request, one response.
  std::optional<TcpResponse> Call(std::string_view frame,
                                  milliseconds timeout = milliseconds(5000)) {
    if (!Send(frame)) return std::nullopt;
    return Read(timeout);
  }

  // Reads until the peer closes or the deadline passes.
  Ending WaitClosed(milliseconds timeout = milliseconds(5000)) {
    Ending e;
    const auto until = Clock::now() + timeout;
    char buf[4096];
    while (WaitReadable(until)) {
      ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r > 0) {
        e.extra.append(buf, static_cast<size_t>(r));
        continue;
      }
      e.closed = true;
      e.reset = r < 0;
      return e;
    }
    return e;
  }

 private:
  bool WaitReadable(Clock::time_point until) {
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now()).count();
      if (left < 0) return false;
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(left) + 1);
      if (r < 0 && errno == EINTR) continue;
      return r > 0;
    }
  }

  int fd_ = -1;
  int connect_errno_ = 0;
};

// ---- /metrics

// GET http://ADDRESS/PATH over a plain socket; the body, or "" on any failure.
inline std::string HttpGet(const std::string& address, const std::string& path) {
  TcpClient c(address);
  if (!c.connected()) return {};
  if (!c.Send("GET " + path + " HTTP/1.0\r\nHost: " + address + "\r\nConnection: close\r\n\r\n"))
    return {};
  Ending e = c.WaitClosed(milliseconds(5000));
  if (!e.closed || !e.extra.starts_with("HTTP/1.") || e.extra.find(" 200 ") == std::string::npos)
    return {};
  const size_t body = e.extra.find("\r\n\r\n");
  return body == std::string::npos ? std::string() : e.extra.substr(body + 4);
}

// Prometheus text: the sum of the samples of `name` (exactly that name) whose label set
// contains every one of `labels` (each written as in the exposition: transport="tcp").
inline double MetricSum(std::string_view text, std::string_view name,
                        std::initializer_list<std::string_view> labels = {}) {
  double sum = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#' || !line.starts_with(name)) continue;
    if (line.size() <= name.size() || (line[name.size()] != '{' && line[name.size()] != ' '))
      continue;
    bool match = true;
    for (std::string_view l : labels) match = match && line.find(l) != std::string_view::npos;
    if (!match) continue;
    sum += std::stod(std::string(line.substr(line.rfind(' ') + 1)));
  }
  return sum;
}

inline bool HasMetric(std::string_view text, std::string_view name) {
  return text.find(Cat({"\n", name, "{"})) != std::string_view::npos ||
         text.find(Cat({"\n", name, " "})) != std::string_view::npos;
}

// One scrape of a server's /metrics.
inline std::string Scrape(Server& server) { return HttpGet(server.metrics_address(), "/metrics"); }

// ---- this process's memory

inline uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Bytes malloc has handed out and not had back, over every arena.
inline uint64_t HeapInUse() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// ---- gRPC

inline std::unique_ptr<rosetta::v1::Transcoder::Stub> TranscoderStub(const std::string& address) {
  return rosetta::v1::Transcoder::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
}

// A TranscodeRequest of `payload` from `in` to `out`, with the server's limits.
inline rosetta::v1::TranscodeRequest Req(rosetta::v1::Format in, rosetta::v1::Format out,
                                         std::string payload) {
  rosetta::v1::TranscodeRequest r;
  r.set_input_format(in);
  r.set_output_format(out);
  r.set_payload(std::move(payload));
  return r;
}

inline void SetDeadline(grpc::ClientContext& context, milliseconds timeout = milliseconds(5000)) {
  context.set_deadline(std::chrono::system_clock::now() + timeout);
}

// The rosetta.v1.Error in a failed call's trailing metadata "rosetta-error-bin".
inline std::optional<rosetta::v1::Error> TrailingError(const grpc::ClientContext& context) {
  const auto& trailers = context.GetServerTrailingMetadata();
  auto it = trailers.find("rosetta-error-bin");
  if (it == trailers.end()) return std::nullopt;
  rosetta::v1::Error e;
  if (!e.ParseFromArray(it->second.data(), static_cast<int>(it->second.size())))
    return std::nullopt;
  return e;
}

}  // namespace rosetta::service::testing
