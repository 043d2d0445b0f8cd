#include "service/config.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>

#include <simdjson.h>

namespace rosetta::service {
namespace {

// One setting: its flag (--name), environment variable (ROSETTA_NAME) and JSON key
// (name with '_'), and how to store it.
struct Option {
  std::string name;  // flag spelling, e.g. "max-input-bytes"
  std::string help;
  enum Type { kString, kUint, kList } type;
  std::function<bool(ServiceConfig&, std::string_view)> set;
};

template <class T>
bool ParseUint(std::string_view s, T* out, bool allow_zero = false) {
  T v{};
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty() || (!allow_zero && v == 0))
    return false;
  *out = v;
  return true;
}

// Each listed violation is a Status of its own (message, path) held until the answer is
// sent: a payload breaking its schema at every item cannot make one answer unbounded.
constexpr uint32_t kMaxViolations = 10000;

bool ValidListen(std::string_view s) {
  size_t colon = s.rfind(':');
  uint32_t port;
  return colon != std::string_view::npos && colon > 0 &&
         ParseUint(s.substr(colon + 1), &port, true) && port <= 65535;
}

template <class T>
Option Uint(const char* name, const char* help, T ServiceConfig::*field, bool allow_zero = false,
            T max = std::numeric_limits<T>::max()) {
  return {name, help, Option::kUint,
          [field, allow_zero, max](ServiceConfig& c, std::string_view v) {
            T n{};
            if (!ParseUint(v, &n, allow_zero) || n > max) return false;
            c.*field = n;
            return true;
          }};
}
// A server default limit, from its row of codec::kLimitTable: "max_depth" is --max-depth.
Option Limit(const codec::LimitInfo& info) {
  std::string name(info.name);
  for (char& c : name) c = c == '_' ? '-' : c;
  return {
      name,
      std::string(info.meaning) +
          (info.hard_cap < ~uint64_t{0} ? " (at most " + std::to_string(info.hard_cap) + ")" : ""),
      Option::kUint, [&info](ServiceConfig& c, std::string_view v) {
        uint64_t n;
        if (!ParseUint(v, &n) || n > info.hard_cap) return false;
        info.set(c.limits, n);
        return true;
      }};
}
// A file path (or, with allow_empty, nothing: the feature off).
Option Path(const char* name, const char* help, std::string ServiceConfig::*field) {
  return {name, help, Option::kString, [field](ServiceConfig& c, std::string_view v) {
            c.*field = std::string(v);
            return true;
          }};
}
Option Listen(const char* name, const char* help, std::string ServiceConfig::*field,
              bool allow_empty = false) {
  return {name, help, Option::kString, [field, allow_empty](ServiceConfig& c, std::string_view v) {
            if (!ValidListen(v) && !(allow_empty && v.empty())) return false;
            c.*field = std::string(v);
            return true;
          }};
}

const std::vector<Option>& Options() {
  static const std::vector<Option> options = [] {
    std::vector<Option> all = {
        Listen("grpc-listen", "gRPC listener HOST:PORT (port 0: any free port)",
               &ServiceConfig::grpc_listen),
        Listen("tcp-listen", "TCP frame protocol listener HOST:PORT", &ServiceConfig::tcp_listen),
        Listen("http-listen", "HTTP/1.1 listener HOST:PORT", &ServiceConfig::http_listen),
        Listen("metrics-listen", "Prometheus /metrics listener HOST:PORT",
               &ServiceConfig::metrics_listen),
        Listen("health-listen",
               "plaintext HTTP listener of GET /healthz and /readyz only, for probes (empty: none)",
               &ServiceConfig::health_listen, true),
        Path("tls-cert", "PEM certificate (chain): TLS on the gRPC, TCP and HTTP listeners",
             &ServiceConfig::tls_cert),
        Path("tls-key", "PEM private key of --tls-cert (both reloaded on SIGHUP)",
             &ServiceConfig::tls_key),
        Path("tls-client-ca", "PEM CA certificates: clients must present a certificate they sign",
             &ServiceConfig::tls_client_ca),
        Uint("max-inflight-bytes",
             "payload bytes of the requests in flight, all transports; past it: overloaded",
             &ServiceConfig::max_inflight_bytes),
        Uint("grpc-max-receive-bytes",
             "largest gRPC message, checked at its prefix (0: max-input-bytes + 64 KiB)",
             &ServiceConfig::grpc_max_receive_bytes, true),
        Uint("grpc-max-concurrent-streams", "HTTP/2 streams one gRPC connection may have open",
             &ServiceConfig::grpc_max_concurrent_streams),
        Uint("grpc-max-connection-age-ms", "GOAWAY a gRPC connection this old (0: never)",
             &ServiceConfig::grpc_max_connection_age_ms, true),
        Uint("grpc-max-connections", "open gRPC connections at most; more are closed at once",
             &ServiceConfig::grpc_max_connections),
        Uint("grpc-handshake-timeout-ms",
             "a gRPC connection's preface and first request within this",
             &ServiceConfig::grpc_handshake_timeout_ms),
        Uint("grpc-idle-timeout-ms", "a gRPC connection without calls is sent GOAWAY after this",
             &ServiceConfig::grpc_idle_timeout_ms),
        Uint("grpc-message-timeout-ms", "a started gRPC message must arrive whole within this",
             &ServiceConfig::grpc_message_timeout_ms),
        Uint("grpc-max-header-list-bytes", "a gRPC request's headers at most (HTTP/2 size)",
             &ServiceConfig::grpc_max_header_list_bytes),
        Uint("http-max-connections", "open HTTP connections at most; more are closed at once",
             &ServiceConfig::http_max_connections),
        Uint("http-header-timeout-ms", "an HTTP request header must arrive whole within this",
             &ServiceConfig::http_header_timeout_ms),
        Uint("http-body-timeout-ms", "an HTTP request body must arrive whole within this",
             &ServiceConfig::http_body_timeout_ms),
        Uint("http-idle-timeout-ms", "a kept-alive HTTP connection is closed after this idle",
             &ServiceConfig::http_idle_timeout_ms),
        Uint("http-max-header-bytes", "an HTTP request header at most (431 past it)",
             &ServiceConfig::http_max_header_bytes),
        Uint("http-max-header-count", "header fields in one HTTP request at most (431 past it)",
             &ServiceConfig::http_max_header_count),
        Uint("io-threads", "I/O threads of the gRPC, TCP and HTTP front-ends (0: one per core)",
             &ServiceConfig::io_threads, true),
        Uint("tcp-max-connections", "open TCP connections at most; more are closed at once",
             &ServiceConfig::tcp_max_connections),
        Uint("tcp-frame-timeout-ms", "a started frame must arrive whole within this",
             &ServiceConfig::tcp_frame_timeout_ms),
        Uint("tcp-idle-timeout-ms", "a connection with no progress is closed after this",
             &ServiceConfig::tcp_idle_timeout_ms),
        Uint("tcp-max-pending-bytes", "unsent response bytes above which a connection is not read",
             &ServiceConfig::tcp_max_pending_bytes),
        Uint("tcp-linger-ms", "after an error close, input is discarded this long",
             &ServiceConfig::tcp_linger_ms, true),
        Uint("drain-timeout-ms", "on SIGTERM/SIGINT, in-flight requests get this long",
             &ServiceConfig::drain_timeout_ms),
        Uint("request-metrics", "1: per-request metrics; 0: none (to measure their cost)",
             &ServiceConfig::request_metrics, true),
        Path("schema-dir", "JSON Schemas (every *.json) requests may name; SIGHUP reloads them",
             &ServiceConfig::schema_dir),
        Uint("max-violations",
             "schema violations one validate answer lists at most (10000 at most)",
             &ServiceConfig::max_violations, false, kMaxViolations),
        {"descriptor-set", "protobuf FileDescriptorSet file or directory (repeatable)",
         Option::kList,
         [](ServiceConfig& c, std::string_view v) {
           c.descriptor_sets.emplace_back(v);
           return !v.empty();
         }},
    };
    // The limits after the listeners, in their table's order.
    std::vector<Option> limits;
    for (const codec::LimitInfo& info : codec::kLimitTable) limits.push_back(Limit(info));
    all.insert(all.begin() + 4, limits.begin(), limits.end());
    return all;
  }();
  return options;
}

std::string EnvName(std::string_view name) {
  std::string env = "ROSETTA_";
  for (char c : name)
    env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

std::string JsonKey(std::string_view name) {
  std::string key(name);
  for (char& c : key) c = c == '-' ? '_' : c;
  return key;
}

ConfigResult Error(std::string message) {
  ConfigResult r;
  r.kind = ConfigResult::kError;
  r.error = std::move(message);
  return r;
}

// The JSON config file: an object whose keys are the settings' names with '_'.
bool ApplyFile(const std::string& path, ServiceConfig& config, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "--config: cannot read " + path;
    return false;
  }
  std::string text((std::istreambuf_iterator<char>(in)), {});
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(text).get(object)) {
    *error = "--config " + path + ": not a JSON object";
    return false;
  }
  for (auto [key, value] : object) {
    const Option* option = nullptr;
    for (const Option& o : Options()) {
      if (JsonKey(o.name) == key) option = &o;
    }
    if (option == nullptr) {
      *error = "--config " + path + ": unknown setting \"" + std::string(key) + "\"";
      return false;
    }
    std::vector<std::string> texts;
    if (value.is_array() && option->type == Option::kList) {
      for (auto item : value.get_array()) {
        std::string_view s;
        if (item.get(s)) {
          *error = "--config " + path + ": \"" + std::string(key) + "\" must hold strings";
          return false;
        }
        texts.emplace_back(s);
      }
    } else if (value.is_string()) {
      texts.emplace_back(std::string_view(value.get_string().value_unsafe()));
    } else if (value.is_uint64() || value.is_int64()) {
      texts.push_back(std::string(simdjson::minify(value)));
    } else {
      *error = "--config " + path + ": bad value for \"" + std::string(key) + "\"";
      return false;
    }
    for (const std::string& t : texts) {
      if (!option->set(config, t)) {
        *error = "--config " + path + ": bad value '" + t + "' for \"" + std::string(key) + "\"";
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::string ConfigHelp() {
  std::string help =
      "usage: rosettad [--config FILE] [OPTIONS]\n"
      "Settings come from flags, then ROSETTA_* environment variables, then the JSON config file\n"
      "(keys as below with '_' for '-'), then defaults.\n\n";
  ServiceConfig defaults;
  for (const Option& o : Options()) {
    std::string line = "  --" + std::string(o.name) + (o.type == Option::kUint ? " N" : " VALUE");
    line.resize(std::max<size_t>(line.size() + 1, 34), ' ');
    help += line + o.help + "  [env " + EnvName(o.name) + "]\n";
  }
  help +=
      "  --config FILE                   JSON file of settings\n  --help                          "
      "this text\n";
  return help;
}

ConfigResult LoadConfig(int argc, char** argv, char** environ) {
  ConfigResult result;
  // Flags are collected first so the layers can be applied lowest first.
  std::vector<std::pair<const Option*, std::string>> flags;
  std::string config_file;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      result.kind = ConfigResult::kHelp;
      return result;
    }
    if (!a.starts_with("--")) return Error("unexpected argument '" + std::string(a) + "'");
    a.remove_prefix(2);
    std::string value;
    size_t eq = a.find('=');
    std::string_view name = a.substr(0, eq);
    if (eq != std::string_view::npos) {
      value = std::string(a.substr(eq + 1));
    } else {
      if (i + 1 >= argc) return Error("--" + std::string(name) + " needs a value");
      value = argv[++i];
    }
    if (name == "config") {
      config_file = value;
      continue;
    }
    const Option* option = nullptr;
    for (const Option& o : Options()) {
      if (name == o.name) option = &o;
    }
    if (option == nullptr) return Error("unknown option --" + std::string(name));
    flags.emplace_back(option, value);
  }
  ServiceConfig& config = result.config;
  if (config_file.empty()) {
    for (char** e = environ; e && *e; ++e) {
      if (std::strncmp(*e, "ROSETTA_CONFIG=", 15) == 0) config_file = *e + 15;
    }
  }
  std::string error;
  if (!config_file.empty() && !ApplyFile(config_file, config, &error)) return Error(error);
  std::map<std::string, std::string, std::less<>> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos && kv.starts_with("ROSETTA_"))
      env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  for (const Option& o : Options()) {
    auto it = env.find(EnvName(o.name));
    if (it == env.end()) continue;
    if (o.type == Option::kList) config.descriptor_sets.clear();
    if (!o.set(config, it->second))
      return Error(EnvName(o.name) + ": bad value '" + it->second + "' (" + o.help + ")");
  }
  bool list_cleared = false;
  for (auto& [option, value] : flags) {
    if (option->type == Option::kList && !list_cleared) {
      config.descriptor_sets.clear();
      list_cleared = true;
    }
    if (!option->set(config, value)) {
      return Error("--" + std::string(option->name) + ": bad value '" + value + "' (" +
                   option->help + ")");
    }
  }
  return result;
}

}  // namespace rosetta::service
