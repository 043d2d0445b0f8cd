// rosetta-load over gRPC: N channels, each with K unary calls in flight (callback API).
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

#include "load/generator/load_run.h"
#include "rosetta/v1/transcoder.grpc.pb.h"

namespace rosetta::load {
namespace {

std::string GrpcCodeName(grpc::StatusCode code) {
  static constexpr const char* kNames[] = {"ok",
                                           "cancelled",
                                           "unknown",
                                           "invalid_argument",
                                           "deadline_exceeded",
                                           "not_found",
                                           "already_exists",
                                           "permission_denied",
                                           "resource_exhausted",
                                           "failed_precondition",
                                           "aborted",
                                           "out_of_range",
                                           "unimplemented",
                                           "internal",
                                           "unavailable",
                                           "data_loss",
                                           "unauthenticated"};
  const int i = static_cast<int>(code);
  return i >= 0 && i < 17 ? kNames[i] : std::to_string(i);
}

// The rosetta code from the rosetta-error-bin trailer (DESIGN.md "gRPC"); a failure
// without it (transport, deadline) is named "grpc_" + the status code.
std::string ErrorCode(const grpc::Status& status, const grpc::ClientContext& context) {
  const auto& trailers = context.GetServerTrailingMetadata();
  if (auto it = trailers.find("rosetta-error-bin"); it != trailers.end()) {
    rosetta::v1::Error e;
    if (e.ParseFromArray(it->second.data(), static_cast<int>(it->second.size())) &&
        !e.code().empty())
      return e.code();
  }
  return "grpc_" + GrpcCodeName(status.error_code());
}

bool ReadPem(const std::string& path, const char* flag, std::string* out, std::string* error) {
  if (path.empty()) return true;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in) {
    *error = std::string(flag) + " " + path + ": cannot read it";
    return false;
  }
  *out = std::move(s).str();
  return true;
}

// The channels' credentials from the --tls* flags. With --tls-ca, SslCredentials verifies
// the server against it; without it, nothing is verified (as over TCP and HTTP), which
// SslCredentials cannot do (it falls back to the system's roots): the TLS credentials then.
std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const TlsConfig& tls,
                                                             std::string* error) {
  if (!tls.enabled) return grpc::InsecureChannelCredentials();
  std::string ca, cert, key;
  if (!ReadPem(tls.ca_file, "--tls-ca", &ca, error) ||
      !ReadPem(tls.cert_file, "--tls-cert", &cert, error) ||
      !ReadPem(tls.key_file, "--tls-key", &key, error))
    return nullptr;
  if (!tls.ca_file.empty()) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = ca;
    options.pem_private_key = key;
    options.pem_cert_chain = cert;
    return grpc::SslCredentials(options);
  }
  namespace gx = grpc::experimental;
  gx::TlsChannelCredentialsOptions options;
  options.set_verify_server_certs(false);
  options.set_certificate_verifier(std::make_shared<gx::NoOpCertificateVerifier>());
  options.set_check_call_host(false);
  if (!cert.empty()) {
    options.set_certificate_provider(std::make_shared<gx::StaticDataCertificateProvider>(
        std::vector<gx::IdentityKeyCertPair>{{key, cert}}));
    options.watch_identity_key_cert_pairs();
  }
  return gx::TlsCredentials(options);
}

class GrpcConnection {
 public:
  GrpcConnection(LoadState& state, ConnectionStats& stats, std::shared_ptr<grpc::Channel> channel)
      : state_(state),
        config_(state.config),
        stats_(stats),
        stub_(rosetta::v1::Transcoder::NewStub(channel)),
        slots_(static_cast<size_t>(config_.inflight)) {
    for (Slot& s : slots_) {
      // One request per slot: a message is never serialized by two calls at once.
      s.transcode_request.set_input_format(static_cast<rosetta::v1::Format>(config_.from));
      s.transcode_request.set_output_format(static_cast<rosetta::v1::Format>(config_.to));
      s.transcode_request.set_payload(config_.payload);
      s.transcode_request.set_message_type(config_.message_type);
      s.validate_request.set_format(static_cast<rosetta::v1::Format>(config_.from));
      s.validate_request.set_payload(config_.payload);
      s.validate_request.set_message_type(config_.message_type);
      free_.push_back(&s);
    }
  }

  void SetDeadline(std::chrono::system_clock::time_point deadline) { deadline_ = deadline; }

  // Closed loop: K calls now; each answer sends the next until the window ends.
  void StartClosed() {
    std::vector<Slot*> slots;
    {
      std::lock_guard<std::mutex> lock(mu_);
      slots.swap(free_);
    }
    for (Slot* s : slots) Issue(*s, Clock::now());
  }

  // Open loop: a request is due now; it waits for a slot if all K are busy.
  void Due(Clock::time_point intended) {
    Slot* slot = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_.empty()) {
        backlog_.push_back(intended);
        state_.backlog.fetch_add(1);
        return;
      }
      slot = free_.back();
      free_.pop_back();
    }
    Issue(*slot, intended);
  }

  // After the drain deadline: requests never sent count as errors.
  void AbandonBacklog() {
    std::lock_guard<std::mutex> lock(mu_);
    for (Clock::time_point t : backlog_) stats_.RecordUnanswered(state_.window, t, "not_sent");
    state_.backlog.fetch_sub(static_cast<int64_t>(backlog_.size()));
    backlog_.clear();
  }

  void CancelAll() {
    std::lock_guard<std::mutex> lock(mu_);
    for (Slot& s : slots_) {
      if (std::find(free_.begin(), free_.end(), &s) == free_.end() && s.context)
        s.context->TryCancel();
    }
  }

 private:
  struct Slot {
    rosetta::v1::TranscodeRequest transcode_request;
    rosetta::v1::TranscodeResponse transcode_response;
    rosetta::v1::ValidateRequest validate_request;
    rosetta::v1::ValidateResponse validate_response;
    std::unique_ptr<grpc::ClientContext> context;
    Clock::time_point intended, sent;
  };

  void Issue(Slot& slot, Clock::time_point intended) {
    state_.in_flight.fetch_add(1);
    {
      // Under the lock: CancelAll may look at the context.
      std::lock_guard<std::mutex> lock(mu_);
      slot.context = std::make_unique<grpc::ClientContext>();
      slot.context->set_deadline(deadline_);
    }
    slot.intended = intended;
    slot.sent = Clock::now();
    if (config_.op == Operation::kTranscode) {
      stub_->async()->Transcode(slot.context.get(), &slot.transcode_request,
                                &slot.transcode_response,
                                [this, &slot](grpc::Status s) { OnDone(slot, s); });
    } else {
      stub_->async()->Validate(slot.context.get(), &slot.validate_request, &slot.validate_response,
                               [this, &slot](grpc::Status s) { OnDone(slot, s); });
    }
  }

  void OnDone(Slot& slot, const grpc::Status& status) {
    const Clock::time_point done = Clock::now();
    std::string code;
    if (!status.ok()) {
      code = ErrorCode(status, *slot.context);
    } else if (config_.op == Operation::kValidate && !slot.validate_response.valid()) {
      code = slot.validate_response.error().code().empty() ? "invalid"
                                                           : slot.validate_response.error().code();
    }
    stats_.Record(state_.window, slot.intended, slot.sent, done, code);
    bool again = false;
    Clock::time_point next;
    if (config_.mode == Mode::kClosed) {
      again = done < state_.window.stop && !state_.Stopped();
      next = done;
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      if (!backlog_.empty()) {
        again = true;
        next = backlog_.front();
        backlog_.pop_front();
        state_.backlog.fetch_sub(1);
      }
    }
    if (again) {
      Issue(slot, next);  // counted in flight before this one is counted out
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(&slot);
    }
    state_.in_flight.fetch_sub(1);
  }

  LoadState& state_;
  const LoadConfig& config_;
  ConnectionStats& stats_;
  std::unique_ptr<rosetta::v1::Transcoder::Stub> stub_;
  std::vector<Slot> slots_;
  std::chrono::system_clock::time_point deadline_;
  std::mutex mu_;
  std::vector<Slot*> free_;
  std::deque<Clock::time_point> backlog_;
};

// The channel target: one address through the DNS resolver (a name may stand for several
// replicas, as a headless Service's does), several as a static list of IP addresses.
std::string ChannelTarget(const LoadConfig& config, std::string* error) {
  auto hostport = [](const std::string& host, const std::string& port) {
    std::string s;
    if (host.find(':') != std::string::npos) {
      s.append("[").append(host).append("]");
    } else {
      s.append(host);
    }
    return s.append(":").append(port);
  };
  if (config.addresses.size() <= 1)
    return std::string("dns:///").append(hostport(config.host, config.port));
  std::string list;
  bool v6 = false;
  for (const auto& [host, port] : config.addresses) {
    const bool is_v6 = host.find(':') != std::string::npos;
    const bool is_v4 = !is_v6 && host.find_first_not_of("0123456789.") == std::string::npos;
    if (!is_v4 && !is_v6) {
      *error = "gRPC takes several --address only as IP addresses (" + host +
               " is a name: give one name that resolves to every replica instead)";
      return {};
    }
    v6 = is_v6;
    if (!list.empty()) list += ',';
    list += hostport(host, port);
  }
  return std::string(v6 ? "ipv6:" : "ipv4:").append(list);
}

// Every channel balances calls over all the addresses its target resolves to
// (round_robin), and retries a call that fails UNAVAILABLE (a replica draining or gone:
// GOAWAY, a refused connection) as gRPC's retry policy allows (gRFC A6), on another one.
std::string ServiceConfig(int max_attempts) {
  std::string config = R"({"loadBalancingConfig": [{"round_robin": {}}])";
  if (max_attempts > 1) {
    config += R"(, "methodConfig": [{"name": [{"service": "rosetta.v1.Transcoder"}], )"
              R"("retryPolicy": {"maxAttempts": )" +
              std::to_string(max_attempts) +
              R"(, "initialBackoff": "0.05s", "maxBackoff": "1s", "backoffMultiplier": 2, )"
              R"("retryableStatusCodes": ["UNAVAILABLE"]}}])";
  }
  return config + "}";
}

}  // namespace

bool RunGrpcLoad(LoadState& state, std::string* error) {
  const LoadConfig& config = state.config;
  const std::string target = ChannelTarget(config, error);
  if (target.empty()) return false;
  const std::shared_ptr<grpc::ChannelCredentials> credentials =
      ChannelCredentials(config.tls, error);
  if (!credentials) return false;
  std::vector<std::unique_ptr<GrpcConnection>> connections;
  for (int i = 0; i < config.connections; ++i) {
    grpc::ChannelArguments args;
    // A distinct argument per channel: channels with equal arguments share one subchannel
    // (one TCP connection), which would make N channels one connection.
    args.SetInt("rosetta.load.channel", i);
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    args.SetServiceConfigJSON(ServiceConfig(config.grpc_max_attempts));
    // A retried call's request is kept until it is answered: room for this payload.
    args.SetInt(GRPC_ARG_PER_RPC_RETRY_BUFFER_SIZE,
                static_cast<int>(std::max<size_t>(256 << 10, config.payload.size() + (64 << 10))));
    // A replica that went away is looked up again within a second (default: 30 s), so a
    // restarted one (a new address behind the same name) takes calls soon.
    args.SetInt(GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS, 1000);
    if (!config.tls.server_name.empty()) args.SetSslTargetNameOverride(config.tls.server_name);
    auto channel = grpc::CreateCustomChannel(target, credentials, args);
    if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(5))) {
      // One call, to learn why (a refused connection, a failed handshake).
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
      rosetta::v1::ValidateRequest request;
      rosetta::v1::ValidateResponse response;
      const grpc::Status status =
          rosetta::v1::Transcoder::NewStub(channel)->Validate(&context, request, &response);
      *error = "cannot connect to " + target + " over gRPC" +
               (config.tls.enabled ? " with TLS" : "") + ": " + status.error_message();
      return false;
    }
    connections.push_back(std::make_unique<GrpcConnection>(state, *state.connections[i], channel));
  }

  state.Begin();
  const RunWindow& w = state.window;
  const auto deadline = std::chrono::system_clock::now() + (state.DrainDeadline() - Clock::now());
  for (auto& c : connections) c->SetDeadline(deadline);
  if (config.mode == Mode::kClosed) {
    for (auto& c : connections) c->StartClosed();
    state.WaitForEnd();
  } else {
    // The pacer: request j is due at start + j / rate on connection j % N, whatever the
    // answers do. When it wakes late it sends what is due at once; the lateness is part
    // of the measured latency, never hidden.
    const size_t n = connections.size();
    for (uint64_t j = 0;; ++j) {
      const Clock::time_point t = IntendedTime(w, config.rate, j);
      if (t >= w.stop || state.Stopped()) break;
      if (t > Clock::now()) std::this_thread::sleep_until(t);
      connections[j % n]->Due(t);
    }
  }
  const Clock::time_point drain = state.DrainDeadline();
  while ((state.in_flight.load() > 0 || state.backlog.load() > 0) && Clock::now() < drain) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& c : connections) c->AbandonBacklog();
  for (auto& c : connections) c->CancelAll();
  while (state.in_flight.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return true;
}

}  // namespace rosetta::load
