#pragma once

#include <nghttp2/nghttp2.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>

#include "heap/heap_counter.h"
#include "service/admission.h"
#include "service/grpc_wire.h"
#include "service/metrics.h"
#include "service/tls.h"

namespace rosetta::service {

class GrpcServer;

// The gRPC methods rosettad serves, found from a request's :path.
enum class GrpcMethod : uint8_t {
  kUnknown,
  kTranscode,        // rosetta.v1.Transcoder, unary
  kValidate,         // rosetta.v1.Transcoder, unary
  kTranscodeStream,  // rosetta.v1.Transcoder, bidirectional: one response per request
  kHealthCheck,      // grpc.health.v1.Health, unary
  kHealthWatch,      // grpc.health.v1.Health, server streaming
  kReflection,       // grpc.reflection.v1 and v1alpha ServerReflectionInfo, bidirectional
};
GrpcMethod FindGrpcMethod(std::string_view path);

// One HTTP/2 connection of the gRPC front-end: libnghttp2 reads and writes the frames,
// this class owns the socket, the streams, their messages and every bound on them. Runs on
// one I/O thread (its socket's io_context): nothing in it needs a lock.
//
// A request message is checked at its 5-byte prefix against grpc_max_receive_bytes before
// any of its body is kept; a message that arrives whole in one read is handled where it
// lies, with no copy. The bytes a connection keeps for unfinished messages are bounded:
// flow-control credit is given back (nghttp2_session_consume) only while they stay within
// one largest message, or to the oldest unfinished message, so a client cannot make a
// connection hold more than two.
class GrpcConnection : public std::enable_shared_from_this<GrpcConnection> {
 public:
  GrpcConnection(boost::asio::ip::tcp::socket socket, GrpcServer& server, size_t worker);
  ~GrpcConnection();

  void Start();
  // Drain: GOAWAY with the last stream id; calls in flight finish, idle streams (a
  // TranscodeStream between requests, health Watch) end with OK; then the connection closes.
  void BeginDrain();
  // Health changed (drain): every Watch stream is sent the new status.
  void HealthChanged();
  void Close();

 private:
  using Clock = std::chrono::steady_clock;

  struct Stream {
    int32_t id = 0;
    GrpcMethod method = GrpcMethod::kUnknown;
    std::string path;
    bool headers_done = false;
    bool grpc_content_type = false;
    bool gzip = false;              // grpc-encoding: gzip
    bool unknown_encoding = false;  // a grpc-encoding other than identity and gzip
    bool remote_closed = false;     // END_STREAM from the client
    bool response_started = false;  // HEADERS sent with a data provider
    bool finished = false;          // status decided: trailers go after the output
    bool end_sent = false;          // END_STREAM sent
    bool deferred = false;          // the data provider waits for output
    bool discarding = false;        // refused: the rest of its input is dropped
    uint64_t messages = 0;          // request messages handled
    uint32_t header_bytes = 0;
    // The message being received.
    unsigned char prefix[5];
    uint8_t prefix_have = 0;
    bool message_compressed = false;
    uint32_t message_length = 0;
    std::string message;            // its bytes so far, when it spans reads
    uint64_t unconsumed = 0;        // received bytes not yet given back as window
    heap::Counts read_allocations;  // by buffering the message
    AdmissionTicket admitted;       // the message's claim, until the next one or the stream ends
    Clock::time_point message_started{};
    Clock::time_point deadline = Clock::time_point::max();  // grpc-timeout
    Clock::time_point created{};
    // The response.
    std::string out;
    size_t out_sent = 0;
    grpc::Code code = grpc::Code::kOk;
    std::string status_message;
    std::string error_bin;      // rosetta-error-bin, raw
    std::string watch_service;  // health Watch: the service watched
    int last_health = -1;       // health Watch: the status last sent
  };

  // nghttp2 callbacks.
  static ssize_t OnSend(nghttp2_session*, const uint8_t* data, size_t length, int, void* self);
  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t, void* self);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data,
                         size_t len, void* self);
  static int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* self);
  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static ssize_t ReadOutput(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                            uint32_t* flags, nghttp2_data_source* source, void* self);

  void DoRead();
  void Flush();
  void DoWrite();
  void ArmTimer();
  void OnTimer();
  void CloseWithGoaway(uint32_t error_code, Rejection reason);

  Stream* Find(int32_t id);
  void HeadersDone(Stream& s);
  void Data(Stream& s, const uint8_t* data, size_t len);
  void MessageDone(Stream& s, std::string_view message, size_t padding);
  void RemoteClosed(Stream& s);
  void Consume(Stream& s, size_t n);
  Stream* Oldest();
  void ReleaseBuffered(size_t n);

  // The calls (grpc_calls.cc): a whole request message of stream s.
  void Handle(Stream& s, std::string_view message, size_t padding);
  void HandleTranscode(Stream& s, std::string_view message, size_t padding, bool stream);
  void HandleValidate(Stream& s, std::string_view message, size_t padding);
  void HandleHealthCheck(Stream& s, std::string_view message);
  void HandleHealthWatch(Stream& s, std::string_view message);
  void SendHealth(Stream& s);

  // The response of stream s: a message (framed here), then the status.
  void SendMessage(Stream& s, std::string framed);
  void Finish(Stream& s, grpc::Code code, std::string message = {}, std::string error_bin = {});
  // A refusal with rosetta-error-bin: the status message is the error line.
  void FinishError(Stream& s, grpc::Code code, const codec::Status& status);
  void SubmitResponseHeaders(Stream& s);
  void SubmitTrailers(Stream& s, bool trailers_only);

  ByteStream stream_;  // the socket, or TLS over it
  boost::asio::steady_timer timer_;
  GrpcServer& server_;
  size_t worker_;
  nghttp2_session* session_ = nullptr;
  std::unordered_map<int32_t, std::unique_ptr<Stream>> streams_;

  std::unique_ptr<char[]> read_buf_;
  std::string out_;           // frames made, not yet written
  std::string writing_;       // frames being written
  bool handshaking_ = false;  // TLS handshake under way: nothing is read or written yet
  bool reading_ = false;
  bool writing_now_ = false;
  bool read_paused_ = false;
  bool closed_ = false;
  bool draining_ = false;
  bool goaway_sent_ = false;
  bool timer_armed_ = false;
  bool got_request_ = false;
  bool peer_goaway_ = false;  // the client sent GOAWAY
  Clock::time_point timer_at_ = Clock::time_point::max();

  Clock::time_point opened_;
  Clock::time_point idle_since_;
  Clock::time_point close_by_ = Clock::time_point::max();  // after GOAWAY
  uint64_t buffered_ = 0;   // bytes of unfinished messages held by the connection
  uint64_t resets_ = 0;     // streams the client reset before their call completed
  uint64_t completed_ = 0;  // calls that ended with a status
};

}  // namespace rosetta::service
