// rosetta-load: a load generator for rosettad (and rosetta-echo) over gRPC, TCP and HTTP/1.1,
// each optionally over TLS.
// Closed loop (each connection keeps K requests in flight: maximum throughput) or open
// loop (a fixed schedule at --rate, latency from each request's intended send time so that
// queueing in the generator is never hidden). Usage: rosetta-load --help.
#include <sys/resource.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "load/generator/load_run.h"
#include "load/tools/datasets.h"

namespace {

using rosetta::load::Clock;
using rosetta::load::ConnectionStats;
using rosetta::load::LatencyHistogram;
using rosetta::load::LoadConfig;
using rosetta::load::LoadState;
using rosetta::load::Mode;
using rosetta::load::Operation;
using rosetta::load::Transport;

constexpr char kUsage[] =
    "usage: rosetta-load [OPTIONS]\n"
    "  --transport grpc|tcp|http   gRPC unary calls, TCP frames or HTTP/1.1 POSTs; default grpc\n"
    "  --address HOST:PORT[,...]   default 127.0.0.1:50051 (grpc), 127.0.0.1:50052 (tcp),\n"
    "                              127.0.0.1:8080 (http); connections spread over every address\n"
    "                              given and every address a name resolves to (gRPC: round_robin)\n"
    "  --connections N             connections (gRPC: channels, each its own connection); default "
    "1\n"
    "  --inflight K                requests in flight per connection (TCP, HTTP: pipelined); "
    "default 1\n"
    "  --mode closed|open          closed: maximum throughput; open: --rate R requests/s in all; "
    "default closed\n"
    "  --rate R                    open loop: requests per second, all connections together\n"
    "  --duration S                measured seconds; default 10\n"
    "  --warmup S                  seconds run before measuring; default 1\n"
    "  --drain S                   after the end, seconds to wait for answers; default 5\n"
    "  --payload FILE | --dataset NAME [--dataset-dir DIR]\n"
    "                              NAME: log log_1k mesh minecraft_savedata mk48, read from\n"
    "                              DIR/NAME.EXT (EXT of --from); DIR: $ROSETTA_DATASETS or "
    "./datasets\n"
    "  --from FMT --to FMT         json cbor msgpack protobuf; default json -> cbor\n"
    "  --message-type NAME         protobuf message type (default for a data set: its own)\n"
    "  --op transcode|validate     default transcode\n"
    "  --threads T                 TCP, HTTP: I/O threads of the generator; default 1\n"
    "  --grpc-max-attempts N       gRPC: tries of a call that fails UNAVAILABLE (retry policy);\n"
    "                              default 5, 1: no retry. TCP: requests that a draining server\n"
    "                              did not answer (going-away) are always sent again elsewhere\n"
    "  --tls                       connect with TLS (1.2 or 1.3; the handshake before the run)\n"
    "  --tls-ca FILE               verify the server against these PEM CAs; without it, no "
    "verification\n"
    "  --tls-cert FILE --tls-key FILE  client certificate (PEM chain) and its key: mutual TLS\n"
    "  --tls-server-name NAME      SNI and the name verified; default the --address host\n"
    "  --json OUT                  write the results as JSON to OUT\n"
    "  --quiet                     no progress line each second\n"
    "SIGTERM or SIGINT ends the run early, as the end of --duration does: no new requests, the\n"
    "answers awaited (--drain), the results printed.\n"
    "exit 0: done (errors are reported, not fatal); 2: usage, payload or connection error\n";

[[noreturn]] void Usage(const std::string& message) {
  std::fprintf(stderr, "rosetta-load: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

double ParseDouble(std::string_view flag, const char* text, double min) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (errno || end == text || *end != '\0' || !(v >= min))
    Usage(std::string(flag) + ": bad value '" + text + "'");
  return v;
}

int ParseInt(std::string_view flag, const char* text) {
  int v = 0;
  std::string_view s(text);
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 1)
    Usage(std::string(flag) + " needs a positive integer");
  return v;
}

rosetta::codec::Format ParseFormatFlag(std::string_view flag, const char* text) {
  auto f = rosetta::codec::ParseFormat(text);
  if (!f) Usage(std::string(flag) + ": unknown format '" + text + "'");
  return *f;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = std::move(s).str();
  return true;
}

// CPU time of this process (user + system): tells whether the generator was the bottleneck.
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

struct Options {
  LoadConfig config;
  std::string json_out;
  std::string payload_source;
  bool quiet = false;
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  LoadConfig& c = o.config;
  std::string address, payload_file, dataset, dataset_dir;
  bool have_to = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    // --flag=value as well as --flag value (Kubernetes args are often written so).
    std::string inline_value;
    bool has_inline = false;
    if (const size_t eq = a.find('='); a.starts_with("--") && eq != std::string_view::npos) {
      inline_value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_inline = true;
    }
    auto value = [&]() -> const char* {
      if (has_inline) return inline_value.c_str();
      if (i + 1 >= argc) Usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--transport") {
      std::string_view v = value();
      if (v == "grpc")
        c.transport = Transport::kGrpc;
      else if (v == "tcp")
        c.transport = Transport::kTcp;
      else if (v == "http")
        c.transport = Transport::kHttp;
      else
        Usage("--transport: grpc, tcp or http");
    } else if (a == "--address") {
      address = value();
    } else if (a == "--connections") {
      c.connections = ParseInt(a, value());
    } else if (a == "--inflight") {
      c.inflight = ParseInt(a, value());
    } else if (a == "--mode") {
      std::string_view v = value();
      if (v == "closed")
        c.mode = Mode::kClosed;
      else if (v == "open")
        c.mode = Mode::kOpen;
      else
        Usage("--mode: closed or open");
    } else if (a == "--rate") {
      c.rate = ParseDouble(a, value(), 0);
    } else if (a == "--duration") {
      c.duration_s = ParseDouble(a, value(), 0.001);
    } else if (a == "--warmup") {
      c.warmup_s = ParseDouble(a, value(), 0);
    } else if (a == "--drain") {
      c.drain_s = ParseDouble(a, value(), 0);
    } else if (a == "--payload") {
      payload_file = value();
    } else if (a == "--dataset") {
      dataset = value();
    } else if (a == "--dataset-dir") {
      dataset_dir = value();
    } else if (a == "--from") {
      c.from = ParseFormatFlag(a, value());
    } else if (a == "--to") {
      c.to = ParseFormatFlag(a, value());
      have_to = true;
    } else if (a == "--message-type") {
      c.message_type = value();
    } else if (a == "--op") {
      std::string_view v = value();
      if (v == "transcode")
        c.op = Operation::kTranscode;
      else if (v == "validate")
        c.op = Operation::kValidate;
      else
        Usage("--op: transcode or validate");
    } else if (a == "--threads") {
      c.io_threads = ParseInt(a, value());
    } else if (a == "--grpc-max-attempts") {
      c.grpc_max_attempts = ParseInt(a, value());
    } else if (a == "--tls") {
      c.tls.enabled = true;
    } else if (a == "--tls-ca") {
      c.tls.ca_file = value();
    } else if (a == "--tls-cert") {
      c.tls.cert_file = value();
    } else if (a == "--tls-key") {
      c.tls.key_file = value();
    } else if (a == "--tls-server-name") {
      c.tls.server_name = value();
    } else if (a == "--json") {
      o.json_out = value();
    } else if (a == "--quiet") {
      o.quiet = true;
    } else {
      Usage("unknown option '" + std::string(a) + "'");
    }
  }
  if (c.op == Operation::kValidate && have_to) Usage("--op validate reads --from only");
  if (c.mode == Mode::kOpen && c.rate <= 0) Usage("--mode open needs --rate R > 0");
  if (c.mode == Mode::kClosed && c.rate > 0) Usage("--rate is for --mode open");
  if (!c.tls.enabled && (!c.tls.ca_file.empty() || !c.tls.cert_file.empty() ||
                         !c.tls.key_file.empty() || !c.tls.server_name.empty()))
    Usage("--tls-ca, --tls-cert, --tls-key and --tls-server-name need --tls");
  if (c.tls.cert_file.empty() != c.tls.key_file.empty())
    Usage("--tls-cert and --tls-key go together");
  if (payload_file.empty() == dataset.empty())
    Usage("give one of --payload FILE or --dataset NAME");

  if (address.empty()) {
    address = c.transport == Transport::kGrpc  ? "127.0.0.1:50051"
              : c.transport == Transport::kTcp ? "127.0.0.1:50052"
                                               : "127.0.0.1:8080";
  }
  for (size_t from = 0; from <= address.size();) {
    size_t to = address.find(',', from);
    if (to == std::string::npos) to = address.size();
    const std::string one = address.substr(from, to - from);
    const size_t colon = one.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == one.size())
      Usage("--address needs HOST:PORT[,HOST:PORT...]");
    std::string host = one.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    c.addresses.emplace_back(host, one.substr(colon + 1));
    from = to + 1;
  }
  c.host = c.addresses.front().first;
  c.port = c.addresses.front().second;

  if (!dataset.empty()) {
    const rosetta::load::DatasetInfo* info = rosetta::load::FindDataset(dataset);
    if (info == nullptr) Usage("unknown data set '" + dataset + "'");
    if (dataset_dir.empty()) {
      const char* env = std::getenv("ROSETTA_DATASETS");
      dataset_dir = env && *env ? env : "datasets";
    }
    payload_file =
        dataset_dir + "/" + dataset + "." + std::string(rosetta::load::DatasetExtension(c.from));
    const bool protobuf =
        c.from == rosetta::codec::Format::kProtobuf ||
        (c.op == Operation::kTranscode && c.to == rosetta::codec::Format::kProtobuf);
    if (protobuf && c.message_type.empty()) c.message_type = info->message_type;
  }
  if (!ReadFile(payload_file, &c.payload)) {
    std::fprintf(stderr, "rosetta-load: cannot read %s: %s\n", payload_file.c_str(),
                 std::strerror(errno));
    std::exit(2);
  }
  o.payload_source = payload_file;
  return o;
}

const char* TransportName(Transport t) {
  return t == Transport::kGrpc ? "grpc" : t == Transport::kTcp ? "tcp" : "http";
}

std::string Addresses(const LoadConfig& c) {
  std::string s;
  for (const auto& [host, port] : c.addresses) {
    if (!s.empty()) s += ',';
    if (host.find(':') != std::string::npos) {
      s.append("[").append(host).append("]");
    } else {
      s.append(host);
    }
    s.append(":").append(port);
  }
  return s;
}

std::string Describe(const LoadConfig& c) {
  std::string s = TransportName(c.transport);
  s += " " + Addresses(c) + (c.tls.enabled ? " TLS " : " ");
  s += c.op == Operation::kTranscode
           ? "transcode " + std::string(rosetta::codec::FormatName(c.from)) + "->" +
                 std::string(rosetta::codec::FormatName(c.to))
           : "validate " + std::string(rosetta::codec::FormatName(c.from));
  s += ", " + std::to_string(c.payload.size()) + "-byte payload, ";
  s += c.mode == Mode::kClosed
           ? "closed loop"
           : "open loop at " + std::to_string(static_cast<long long>(c.rate)) + " req/s";
  s += ", " + std::to_string(c.connections) + " connection(s) x " + std::to_string(c.inflight) +
       " in flight";
  return s;
}

void PrintProgress(LoadState& state, Clock::time_point from, Clock::time_point to) {
  ConnectionStats::Interval iv;
  for (auto& c : state.connections) c->TakeInterval(&iv);
  const bool warm = from < state.window.measure_from;
  const double since_start_s = std::chrono::duration<double>(to - state.window.start).count();
  const double interval_s = std::chrono::duration<double>(to - from).count();
  const LatencyHistogram& h = iv.latency;
  std::fprintf(
      stderr,
      "[%6.1fs] %-7s %9.0f req/s  ok %-9llu errors %-6llu p50 %8.1f us  p99 %8.1f us  max %9.1f us "
      " in flight %lld%s\n",
      since_start_s, warm ? "warmup" : "measure",
      static_cast<double>(iv.ok + iv.errors) / interval_s, static_cast<unsigned long long>(iv.ok),
      static_cast<unsigned long long>(iv.errors), Us(h.ValueAtQuantile(0.5)),
      Us(h.ValueAtQuantile(0.99)), Us(h.max()), static_cast<long long>(state.in_flight.load()),
      state.backlog.load() > 0 ? (" backlog " + std::to_string(state.backlog.load())).c_str() : "");
}

volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void OnStopSignal(int sig) { g_stop_signal = sig; }

}  // namespace

int main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  LoadState state(options.config);
  const LoadConfig& c = state.config;
  // A container's stop (and ^C) ends the run with its results (also as PID 1, where a
  // signal without a handler is ignored).
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);

  std::string error;
  bool ok = true;
  std::atomic<bool> done{false};
  std::thread driver([&] {
    switch (c.transport) {
      case Transport::kGrpc:
        ok = rosetta::load::RunGrpcLoad(state, &error);
        break;
      case Transport::kTcp:
        ok = rosetta::load::RunTcpLoad(state, &error);
        break;
      case Transport::kHttp:
        ok = rosetta::load::RunHttpLoad(state, &error);
        break;
    }
    done.store(true);
  });
  if (!options.quiet) std::fprintf(stderr, "rosetta-load: %s\n", Describe(c).c_str());
  // A progress line each second while it runs (latencies of that second, all requests).
  Clock::time_point last;
  bool began = false;
  bool stop_told = false;
  while (!done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (g_stop_signal != 0 && !stop_told) {
      stop_told = true;
      state.RequestStop();
      if (!options.quiet)
        std::fprintf(stderr, "rosetta-load: %s: no new requests, waiting for answers\n",
                     g_stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
    }
    if (!state.started.load(std::memory_order_acquire)) continue;
    const Clock::time_point now = Clock::now();
    if (!began) {
      began = true;
      last = state.window.start;
    }
    if (now - last >= std::chrono::seconds(1)) {
      if (!options.quiet) {
        PrintProgress(state, last, now);
      }
      last = now;
    }
  }
  driver.join();
  if (!ok) {
    std::fprintf(stderr, "rosetta-load: %s\n", error.c_str());
    return 2;
  }

  ConnectionStats::Totals t;
  for (auto& cs : state.connections) cs->AddTotals(&t);
  uint64_t errors = 0;
  for (const auto& [code, n] : t.errors) errors += n;
  // Stopped early: the measured time is what ran of the window.
  const double seconds = std::max(
      1e-3, std::chrono::duration<double>(state.End() - state.window.measure_from).count());
  const double throughput = static_cast<double>(t.ok) / seconds;
  const double offered = c.mode == Mode::kOpen ? c.rate : 0;
  const LatencyHistogram& h = t.latency;
  const double quantiles[] = {0.5, 0.9, 0.99, 0.999};
  const char* names[] = {"p50", "p90", "p99", "p99_9"};

  std::printf("rosetta-load: %s\n", Describe(c).c_str());
  std::printf("  measured     %.1f s (after %.1f s warm-up)\n", seconds, c.warmup_s);
  std::printf("  ok           %llu requests, %.1f req/s, %.2f MB/s of payload\n",
              static_cast<unsigned long long>(t.ok), throughput,
              throughput * static_cast<double>(c.payload.size()) / 1e6);
  std::printf("  errors       %llu", static_cast<unsigned long long>(errors));
  for (const auto& [code, n] : t.errors)
    std::printf("  %s=%llu", code.c_str(), static_cast<unsigned long long>(n));
  std::printf("\n  latency us   p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f%s\n",
              Us(h.ValueAtQuantile(0.5)), Us(h.ValueAtQuantile(0.9)), Us(h.ValueAtQuantile(0.99)),
              Us(h.ValueAtQuantile(0.999)), Us(h.max()), h.mean() / 1e3,
              c.mode == Mode::kOpen ? " (from intended send time)" : "");
  if (state.reconnects.load() > 0) {
    std::printf("  going-away   %llu connection(s) moved, %llu request(s) sent again\n",
                static_cast<unsigned long long>(state.reconnects.load()),
                static_cast<unsigned long long>(state.resent.load()));
  }
  if (state.connections_lost > 0) {
    std::printf("  connections  %d of %d lost (first: %s)\n", state.connections_lost, c.connections,
                state.lost_reason.c_str());
  }
  if (c.mode == Mode::kOpen) {
    std::printf(
        "  open loop    offered %.0f req/s, completed %.1f req/s; send lag (sent - intended) p50 "
        "%.1f us p99 %.1f us\n",
        offered, static_cast<double>(t.ok + errors) / seconds, Us(t.send_lag.ValueAtQuantile(0.5)),
        Us(t.send_lag.ValueAtQuantile(0.99)));
  }

  if (!options.json_out.empty()) {
    std::fflush(stdout);  // the summary first, also when the JSON goes to stdout
    std::string j = "{\n";
    j += "  \"transport\": " + JsonString(TransportName(c.transport)) + ",\n";
    j += "  \"tls\": " + std::string(c.tls.enabled ? "true" : "false") + ",\n";
    j += "  \"address\": " + JsonString(Addresses(c)) + ",\n";
    j +=
        "  \"op\": " + JsonString(c.op == Operation::kTranscode ? "transcode" : "validate") + ",\n";
    j += "  \"from\": " + JsonString(rosetta::codec::FormatName(c.from)) + ",\n";
    j += "  \"to\": " +
         JsonString(c.op == Operation::kTranscode ? rosetta::codec::FormatName(c.to) : "") + ",\n";
    j += "  \"message_type\": " + JsonString(c.message_type) + ",\n";
    j += "  \"payload\": " + JsonString(options.payload_source) + ",\n";
    j += "  \"payload_bytes\": " + std::to_string(c.payload.size()) + ",\n";
    j += "  \"mode\": " + JsonString(c.mode == Mode::kClosed ? "closed" : "open") + ",\n";
    j += "  \"offered_rate\": " + std::to_string(offered) + ",\n";
    j += "  \"connections\": " + std::to_string(c.connections) + ",\n";
    j += "  \"inflight\": " + std::to_string(c.inflight) + ",\n";
    j += "  \"duration_s\": " + std::to_string(seconds) + ",\n";
    j += "  \"stopped_by_signal\": " + std::string(state.Stopped() ? "true" : "false") + ",\n";
    j += "  \"warmup_s\": " + std::to_string(c.warmup_s) + ",\n";
    j += "  \"ok\": " + std::to_string(t.ok) + ",\n";
    j += "  \"errors\": " + std::to_string(errors) + ",\n";
    j += "  \"connections_lost\": " + std::to_string(state.connections_lost) + ",\n";
    j += "  \"connection_error\": " + JsonString(state.lost_reason) + ",\n";
    j += "  \"reconnects\": " + std::to_string(state.reconnects.load()) + ",\n";
    j += "  \"resent\": " + std::to_string(state.resent.load()) + ",\n";
    j += "  \"errors_by_code\": {";
    bool first = true;
    for (const auto& [code, n] : t.errors) {
      j += (first ? "" : ", ") + JsonString(code) + ": " + std::to_string(n);
      first = false;
    }
    j += "},\n";
    j += "  \"throughput_rps\": " + std::to_string(throughput) + ",\n";
    j += "  \"completed_all\": " + std::to_string(t.completed) + ",\n";
    j += "  \"cpu_s\": " + std::to_string(CpuSeconds()) + ",\n";
    j += "  \"completed_rps\": " + std::to_string(static_cast<double>(t.ok + errors) / seconds) +
         ",\n";
    j += "  \"latency_us\": {";
    for (int i = 0; i < 4; ++i)
      j += "\"" + std::string(names[i]) +
           "\": " + std::to_string(Us(h.ValueAtQuantile(quantiles[i]))) + ", ";
    j += "\"max\": " + std::to_string(Us(h.max())) +
         ", \"mean\": " + std::to_string(h.mean() / 1e3) + "},\n";
    j += "  \"send_lag_us\": {\"p50\": " + std::to_string(Us(t.send_lag.ValueAtQuantile(0.5))) +
         ", \"p99\": " + std::to_string(Us(t.send_lag.ValueAtQuantile(0.99))) +
         ", \"max\": " + std::to_string(Us(t.send_lag.max())) + "}\n";
    j += "}\n";
    std::ofstream out(options.json_out, std::ios::binary);
    out << j;
    if (!out) {
      std::fprintf(stderr, "rosetta-load: cannot write %s\n", options.json_out.c_str());
      return 2;
    }
  }
  return 0;
}
