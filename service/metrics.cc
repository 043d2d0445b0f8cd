#include "service/metrics.h"

#include <iterator>

#include "service/pipeline.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>

#include <sstream>
#include <thread>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace rosetta::service {
namespace {

constexpr const char* kTransportNames[] = {"grpc", "tcp", "http"};
static_assert(std::size(kTransportNames) == kTransports);
constexpr const char* kOpNames[] = {"transcode", "validate", "ping", "set_limits", "set_options"};
static_assert(std::size(kOpNames) == kOps);
constexpr const char* kRejectionNames[] = {
    "frame_too_large",  "connection_cap",  "frame_timeout",      "idle_timeout",
    "bad_frame",        "input_too_large", "out_of_descriptors", "handshake_timeout",
    "header_too_large", "message_timeout", "reset_flood",        "protocol_error",
    "header_timeout",   "bad_request",     "overloaded",         "tls_handshake"};
static_assert(std::size(kRejectionNames) == kRejections);

// Label slot of a format: its number, 0 ("none") for a number not in the registry.
int FormatIndex(codec::Format f) {
  return codec::FindFormat(static_cast<int>(f)) ? static_cast<int>(f) : 0;
}
std::string FormatLabel(int i) {
  return i == 0 ? "none" : std::string(codec::FormatName(static_cast<codec::Format>(i)));
}
static_assert(kFormatLabels == codec::kFormatTable.size() + 1);

// Latency 10 us .. 10 s; sizes 64 B .. 64 MiB (issue: buckets chosen for the range).
prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  return {1e-5,   2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2,
          2.5e-2, 5e-2,   0.1,  0.25, 0.5,    1,    2.5,  5,      10};
}
prometheus::Histogram::BucketBoundaries SizeBuckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (double v = 64; v <= 64.0 * 1024 * 1024; v *= 4) b.push_back(v);
  return b;
}
prometheus::Histogram::BucketBoundaries CountBuckets() {
  return {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096};
}

// process_* from /proc at scrape time (the names of the Prometheus client conventions).
class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    auto gauge = [&](const char* name, const char* help, prometheus::MetricType type, double v) {
      prometheus::MetricFamily f;
      f.name = name;
      f.help = help;
      f.type = type;
      prometheus::ClientMetric m;
      if (type == prometheus::MetricType::Counter)
        m.counter.value = v;
      else
        m.gauge.value = v;
      f.metric.push_back(m);
      out.push_back(std::move(f));
    };
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    std::ifstream statm("/proc/self/statm");
    double size = 0, resident = 0;
    statm >> size >> resident;
    gauge("process_resident_memory_bytes", "Resident memory size in bytes.",
          prometheus::MetricType::Gauge, resident * page);
    gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.",
          prometheus::MetricType::Gauge, size * page);
    std::ifstream stat("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    double cpu = 0;
    size_t close = text.rfind(')');
    if (close != std::string::npos) {
      std::istringstream fields(text.substr(close + 2));
      std::string field;
      double utime = 0, stime = 0;
      for (int i = 3; fields >> field; ++i) {  // fields 14 and 15: utime, stime (in ticks)
        if (i == 14) utime = std::stod(field);
        if (i == 15) {
          stime = std::stod(field);
          break;
        }
      }
      cpu = (utime + stime) / ticks;
    }
    gauge("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
          prometheus::MetricType::Counter, cpu);
    double fds = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
      while (dirent* e = readdir(d)) fds += e->d_name[0] != '.';
      closedir(d);
      fds -= 1;  // the directory handle itself
    }
    gauge("process_open_fds", "Number of open file descriptors.", prometheus::MetricType::Gauge,
          fds);
    return out;
  }
};

// One gauge read from a function at scrape time.
class FunctionGauge : public prometheus::Collectable {
 public:
  FunctionGauge(std::string name, std::string help, std::function<double()> read)
      : name_(std::move(name)), help_(std::move(help)), read_(std::move(read)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily f;
    f.name = name_;
    f.help = help_;
    f.type = prometheus::MetricType::Gauge;
    prometheus::ClientMetric m;
    m.gauge.value = read_();
    f.metric.push_back(m);
    return {f};
  }

 private:
  std::string name_, help_;
  std::function<double()> read_;
};

// Opens and closes one TCP connection to ip:port (IPv4 or IPv6 literal).
void Knock(const std::string& ip, int port) {
  sockaddr_storage sa{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&sa);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&sa);
  if (inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v4;
  } else if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v6;
  } else {
    return;
  }
  int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  connect(fd, reinterpret_cast<sockaddr*>(&sa), len);
  close(fd);
}

// Where a listener on HOST:PORT can be reached from this host: the wildcard addresses
// through loopback, a name as 127.0.0.1.
std::string WakeAddress(const std::string& listen) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  in6_addr ignored;
  if (host == "::") return "::1";
  if (inet_pton(AF_INET6, host.c_str(), &ignored) == 1) return host;
  if (host.empty() || host == "0.0.0.0" || inet_pton(AF_INET, host.c_str(), &ignored) != 1)
    return "127.0.0.1";
  return host;
}

template <class T, class F>
T* GetOrCreate(std::atomic<T*>& slot, F make) {
  T* p = slot.load(std::memory_order_acquire);
  if (p) [[likely]]
    return p;
  static std::mutex mu;  // first use of a label set only
  std::lock_guard<std::mutex> lock(mu);
  p = slot.load(std::memory_order_relaxed);
  if (!p) {
    p = &make();
    slot.store(p, std::memory_order_release);
  }
  return p;
}

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(std::make_shared<ShardedFamily<ShardedCounter>>(
          "rosetta_requests_total",
          "Requests handled, by transport, op, formats and outcome (ok or an error code).",
          prometheus::MetricType::Counter)),
      duration_(std::make_shared<ShardedFamily<ShardedHistogram>>(
          "rosetta_request_duration_seconds",
          "Time to handle one request, from its arrival to its response.",
          prometheus::MetricType::Histogram)),
      payload_(std::make_shared<ShardedFamily<ShardedHistogram>>(
          "rosetta_request_payload_bytes", "Payload size per request, in and out.",
          prometheus::MetricType::Histogram)),
      allocated_(std::make_shared<ShardedFamily<ShardedHistogram>>(
          "rosetta_request_allocated_bytes", "Heap bytes allocated while handling one request.",
          prometheus::MetricType::Histogram)),
      allocations_(std::make_shared<ShardedFamily<ShardedHistogram>>(
          "rosetta_request_allocations", "Heap allocations made while handling one request.",
          prometheus::MetricType::Histogram)),
      rejected_(prometheus::BuildCounter()
                    .Name("rosetta_rejected_total")
                    .Help("Refusals, including those before any handler runs, by reason.")
                    .Register(*registry_)),
      connections_active_(prometheus::BuildGauge()
                              .Name("rosetta_connections_active")
                              .Help("Open connections.")
                              .Register(*registry_)),
      connections_total_(prometheus::BuildCounter()
                             .Name("rosetta_connections_total")
                             .Help("Connections accepted.")
                             .Register(*registry_)),
      process_(std::make_shared<ProcessCollector>()) {
  for (int t = 0; t < kTransports; ++t) {
    payload_slots_[t * 2] =
        payload_->Add({{"transport", kTransportNames[t]}, {"direction", "in"}}, SizeBuckets());
    payload_slots_[t * 2 + 1] =
        payload_->Add({{"transport", kTransportNames[t]}, {"direction", "out"}}, SizeBuckets());
    for (int o = 0; o < kOps; ++o) {
      allocated_slots_[t * kOps + o] =
          allocated_->Add({{"transport", kTransportNames[t]}, {"op", kOpNames[o]}}, SizeBuckets());
      allocations_slots_[t * kOps + o] = allocations_->Add(
          {{"transport", kTransportNames[t]}, {"op", kOpNames[o]}}, CountBuckets());
    }
    for (int r = 0; r < kRejections; ++r) {
      rejected_slots_[t * kRejections + r] =
          &rejected_.Add({{"transport", kTransportNames[t]}, {"reason", kRejectionNames[r]}});
    }
    active_slots_[t] = &connections_active_.Add({{"transport", kTransportNames[t]}});
    total_slots_[t] = &connections_total_.Add({{"transport", kTransportNames[t]}});
  }
  auto& reloads = prometheus::BuildCounter()
                      .Name("rosetta_tls_reloads_total")
                      .Help("SIGHUP reloads of the TLS certificate and key, by outcome.")
                      .Register(*registry_);
  tls_reloads_[0] = &reloads.Add({{"outcome", "ok"}});
  tls_reloads_[1] = &reloads.Add({{"outcome", "error"}});
  auto& schema_reloads = prometheus::BuildCounter()
                             .Name("rosetta_schema_reloads_total")
                             .Help("Loads of --schema-dir (start-up and SIGHUP), by outcome.")
                             .Register(*registry_);
  schema_reloads_[0] = &schema_reloads.Add({{"outcome", "ok"}});
  schema_reloads_[1] = &schema_reloads.Add({{"outcome", "error"}});
  schema_violations_ = &prometheus::BuildCounter()
                            .Name("rosetta_schema_violations_total")
                            .Help("Requests refused for a JSON Schema violation, by schema.")
                            .Register(*registry_);
}

void Metrics::ExposeInflight(std::function<double()> read) {
  inflight_ = std::make_shared<FunctionGauge>(
      "rosetta_inflight_bytes",
      "Payload bytes of the requests admitted and not yet answered, all transports.",
      std::move(read));
  if (exposer_) exposer_->RegisterCollectable(inflight_);
}

Metrics::~Metrics() {
  if (!exposer_) return;
  // civetweb's listener thread polls in 2-second quanta and sees the stop flag only
  // between them, so stopping it took up to 2 s (every rosettad exit waited on it).
  // Connections to the listener end its poll at once.
  std::atomic<bool> stopped{false};
  std::thread waker([&] {
    while (!stopped.load()) {
      Knock(exposer_wake_address_, exposer_port_);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  exposer_.reset();
  stopped = true;
  waker.join();
}

int Metrics::Expose(const std::string& listen) {
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(listen, 2);
  } catch (const std::exception&) {
    return -1;
  }
  exposer_->RegisterCollectable(registry_);
  for (auto family : std::initializer_list<std::shared_ptr<prometheus::Collectable>>{
           requests_, duration_, payload_, allocated_, allocations_}) {
    exposer_->RegisterCollectable(family);
  }
  exposer_->RegisterCollectable(process_);
  if (inflight_) exposer_->RegisterCollectable(inflight_);
  auto ports = exposer_->GetListeningPorts();
  exposer_port_ = ports.empty() ? -1 : ports.front();
  exposer_wake_address_ = WakeAddress(listen);
  return exposer_port_;
}

void Metrics::Record(const RequestRecord& r) {
  if (!g_request_metrics) return;
  const int t = static_cast<int>(r.transport), o = static_cast<int>(r.op);
  // Only a transcode has an output format; validate, ping and set-limits are labelled
  // output="none" on both transports, whatever the request carried.
  const int in = FormatIndex(r.input), out = r.op == Op::kTranscode ? FormatIndex(r.output) : 0;
  const int code = static_cast<int>(r.outcome);
  const size_t request_slot =
      (((t * kOps + o) * kFormatLabels + in) * kFormatLabels + out) * codec::kErrorCodeCount + code;
  GetOrCreate(request_slots_[request_slot], [&]() -> ShardedCounter& {
    return *requests_->Add({{"transport", kTransportNames[t]},
                            {"op", kOpNames[o]},
                            {"input", FormatLabel(in)},
                            {"output", FormatLabel(out)},
                            {"outcome", std::string(codec::CodeName(r.outcome))}});
  })->Increment();
  const size_t duration_slot = ((t * kOps + o) * kFormatLabels + in) * kFormatLabels + out;
  GetOrCreate(duration_slots_[duration_slot], [&]() -> ShardedHistogram& {
    return *duration_->Add({{"transport", kTransportNames[t]},
                            {"op", kOpNames[o]},
                            {"input", FormatLabel(in)},
                            {"output", FormatLabel(out)}},
                           LatencyBuckets());
  })->Observe(r.seconds);
  payload_slots_[t * 2]->Observe(static_cast<double>(r.bytes_in));
  payload_slots_[t * 2 + 1]->Observe(static_cast<double>(r.bytes_out));
  allocated_slots_[t * kOps + o]->Observe(static_cast<double>(r.allocated_bytes));
  allocations_slots_[t * kOps + o]->Observe(static_cast<double>(r.allocations));
}

void Metrics::Rejected(Transport transport, Rejection reason) {
  rejected_slots_[static_cast<int>(transport) * kRejections + static_cast<int>(reason)]
      ->Increment();
}

void Metrics::TlsReloaded(bool ok) { tls_reloads_[ok ? 0 : 1]->Increment(); }

void Metrics::SchemaReloaded(bool ok) { schema_reloads_[ok ? 0 : 1]->Increment(); }

prometheus::Counter& Metrics::SchemaViolations(const std::string& schema) {
  return schema_violations_->Add({{"schema", schema}});  // the existing one for a known name
}

void Metrics::ConnectionOpened(Transport transport) {
  active_slots_[static_cast<int>(transport)]->Increment();
  total_slots_[static_cast<int>(transport)]->Increment();
}

void Metrics::ConnectionClosed(Transport transport) {
  active_slots_[static_cast<int>(transport)]->Decrement();
}

}  // namespace rosetta::service
