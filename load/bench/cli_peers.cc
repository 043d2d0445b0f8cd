// rosetta-cli-peers: the peer libraries' whole-process counterparts of `rosetta transcode`,
// one process per run, for load/bench/cli_bench.py (docs/benchmarks.md "Whole-process CLI").
// Each mode is written the way its library documents as its fastest whole-file path.
//
//   nlohmann-json-cbor IN OUT           json::parse + json::to_cbor, OUT written
//   rapidjson-json-json IN OUT          Reader -> Writer in memory (JSON to minified JSON)
//   rapidjson-stream-json-json IN OUT   the same on FileReadStream -> FileWriteStream
//   simdjson-dom-parse IN               dom::parser::load; writes nothing
//   jsonl-logs OUT BYTES SEED           JSON Lines of log records, BYTES or a little more
//   run RESULT CMD [ARG...]             runs CMD; RESULT gets "WALL_S MAXRSS_KIB EXIT USER_S SYS_S"
//
// exit 0: done; 1: the library refused the input (one line on stderr); 2: usage or I/O error.

// RapidJSON's SIMD whitespace skipping and string scanning (its "Performance" page); the
// build targets x86-64-v3, which has SSE4.2.
#if defined(__SSE4_2__)
#define RAPIDJSON_SSE42
#endif

#include <rapidjson/error/en.h>
#include <rapidjson/filereadstream.h>
#include <rapidjson/filewritestream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <simdjson.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void Fail(int code, const std::string& message) {
  std::fprintf(stderr, "rosetta-cli-peers: %s\n", message.c_str());
  std::exit(code);
}

std::FILE* Open(const char* path, const char* mode) {
  std::FILE* f = std::fopen(path, mode);
  if (f == nullptr) Fail(2, std::string("cannot open ") + path + ": " + std::strerror(errno));
  return f;
}

// The whole file in one read of its known size (no growth copies).
std::string ReadFile(const char* path) {
  std::FILE* f = Open(path, "rb");
  struct stat st {};
  if (fstat(fileno(f), &st) != 0) Fail(2, std::string("cannot stat ") + path);
  std::string data(static_cast<size_t>(st.st_size), '\0');
  if (std::fread(data.data(), 1, data.size(), f) != data.size())
    Fail(2, std::string("cannot read ") + path);
  std::fclose(f);
  return data;
}

void WriteFile(const char* path, const void* data, size_t size) {
  std::FILE* f = Open(path, "wb");
  if (std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    Fail(2, std::string("cannot write ") + path);
}

// nlohmann::json has no streaming transcode: parse builds the tree, to_cbor serializes it.
// Parsing from a contiguous buffer is its fast input adapter (a stream reads per character).
int NlohmannJsonCbor(const char* in, const char* out) {
  try {
    std::vector<std::uint8_t> cbor;
    {
      const nlohmann::json j = nlohmann::json::parse(ReadFile(in));
      nlohmann::json::to_cbor(j, cbor);
    }
    WriteFile(out, cbor.data(), cbor.size());
  } catch (const nlohmann::json::exception& e) {
    Fail(1, e.what());
  }
  return 0;
}

void RapidJsonFailed(const rapidjson::ParseResult& r) {
  Fail(1, std::string("rapidjson: ") + rapidjson::GetParseError_En(r.Code()) + " at byte " +
              std::to_string(r.Offset()));
}

// RapidJSON's fastest path (its "Performance" page): the whole file in memory, parsed in
// situ (strings are decoded in place, never copied to a stack) with kParseDefaultFlags (no
// UTF-8 validation; doubles by its fast, not always exact, path), into a Writer on a
// StringBuffer, written at once.
int RapidJsonJsonJson(const char* in, const char* out) {
  std::string text = ReadFile(in);
  rapidjson::StringBuffer buffer(nullptr, text.size());
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  rapidjson::Reader reader;
  rapidjson::InsituStringStream stream(text.data());  // stops at the string's NUL
  if (rapidjson::ParseResult r = reader.Parse<rapidjson::kParseInsituFlag>(stream, writer);
      r.IsError())
    RapidJsonFailed(r);
  WriteFile(out, buffer.GetString(), buffer.GetSize());
  return 0;
}

// RapidJSON's streaming path (constant memory): FileReadStream into Writer<FileWriteStream>.
int RapidJsonStreamJsonJson(const char* in, const char* out) {
  std::FILE* fin = Open(in, "rb");
  std::FILE* fout = Open(out, "wb");
  static char read_buffer[1 << 16], write_buffer[1 << 16];
  rapidjson::FileReadStream is(fin, read_buffer, sizeof read_buffer);
  rapidjson::FileWriteStream os(fout, write_buffer, sizeof write_buffer);
  rapidjson::Writer<rapidjson::FileWriteStream> writer(os);
  rapidjson::Reader reader;
  if (rapidjson::ParseResult r = reader.Parse(is, writer); r.IsError()) RapidJsonFailed(r);
  os.Flush();
  if (std::fclose(fout) != 0) Fail(2, std::string("cannot write ") + out);
  std::fclose(fin);
  return 0;
}

// simdjson's DOM: load reads the file into its padded buffer and parses it to the tape.
int SimdjsonDomParse(const char* in) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (simdjson::error_code e = parser.load(in).get(doc); e != simdjson::SUCCESS)
    Fail(1, std::string("simdjson: ") + simdjson::error_message(e));
  return 0;
}

// JSON Lines of service log records, about 1 KiB each, until `bytes` are written.
// Deterministic for a seed: std::mt19937_64, every draw in statement order.
int JsonlLogs(const char* out, uint64_t bytes, uint64_t seed) {
  static constexpr std::string_view kLevels[] = {"debug", "info", "info", "info", "info",
                                                 "info",  "warn", "warn", "error"};
  static constexpr std::string_view kServices[] = {"checkout", "cart",     "payments", "search",
                                                   "catalog",  "accounts", "gateway",  "shipping"};
  static constexpr std::string_view kMethods[] = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};
  static constexpr std::string_view kPaths[] = {
      "/api/v2/orders",        "/api/v2/orders/{id}", "/api/v2/cart/items", "/api/v1/search",
      "/api/v1/products/{id}", "/api/v2/payments",    "/healthz",           "/api/v1/users/{id}"};
  static constexpr uint64_t kStatuses[] = {200, 200, 200, 200, 201, 204, 304, 400, 404, 500, 503};
  static constexpr std::string_view kMessages[] = {
      "request served",
      "cache miss, fetched from the primary store",
      "upstream timed out after retry; returning cached response",
      "payment authorization declined by issuer",
      "slow query on orders_by_customer (sequential scan on 1.2M rows)",
      "user session refreshed",
      "rate limit reached for API key; request rejected with 429",
      "inventory reservation released after checkout was abandoned"};
  static constexpr std::string_view kAgents[] = {
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 "
      "Safari/537.36",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
      "Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
      "okhttp/4.12.0", "curl/8.4.0", "python-requests/2.31.0"};
  static constexpr std::string_view kTags[] = {"prod",  "canary", "eu-west-1", "us-east-1",
                                               "retry", "cached", "mobile",    "web",
                                               "beta",  "slow",   "internal",  "ab-test-42"};
  static constexpr std::string_view kRegions[] = {"eu-west-1", "us-east-1", "ap-southeast-2"};
  std::mt19937_64 rng(seed);
  std::string r;  // one record
  auto below = [&rng](uint64_t n) { return rng() % n; };
  auto pick = [&below](const auto& table) { return table[below(std::size(table))]; };
  auto text = [&r](std::string_view s) { r += s; };
  auto number = [&r](uint64_t v) {
    char digits[24];
    r.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  };
  auto hex = [&r, &rng](int n) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = 0; i < n; ++i) r += kHex[rng() & 15];
  };
  auto thousandths = [&r](uint64_t v) {  // ".045"
    r += {'.', char('0' + v / 100), char('0' + v / 10 % 10), char('0' + v % 10)};
  };
  std::FILE* f = Open(out, "wb");
  uint64_t written = 0, ms = 1798761600000;  // 2027-01-01T00:00:00Z
  while (written < bytes) {
    r.clear();
    ms += below(3);
    const time_t secs = static_cast<time_t>(ms / 1000);
    struct tm tm {};
    gmtime_r(&secs, &tm);
    char ts[32];
    const size_t ts_size = std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    const std::string_view service = pick(kServices), path = pick(kPaths);
    text("{\"ts\":\""), text({ts, ts_size}), thousandths(ms % 1000);
    text("Z\",\"level\":\""), text(pick(kLevels));
    text("\",\"service\":\""), text(service), text("\",\"host\":\""), text(service), text("-");
    number(below(64)), text(".prod.internal\",\"region\":\""), text(pick(kRegions));
    text("\",\"msg\":\""), text(pick(kMessages)), text("\",\"trace_id\":\""), hex(32);
    text("\",\"span_id\":\""), hex(16), text("\",\"request\":{\"id\":\""), hex(32);
    text("\",\"method\":\""), text(pick(kMethods)), text("\",\"path\":\""), text(path);
    text("\",\"query\":\"page="), number(below(50)), text("&size="), number(10 + below(90));
    text("\",\"status\":"), number(pick(kStatuses)), text(",\"bytes_in\":"), number(below(8192));
    text(",\"bytes_out\":"), number(below(1 << 20));
    text(",\"user_agent\":\""), text(pick(kAgents));
    text("\",\"referer\":\"https://shop.example.com/c/"), number(below(100000));
    text("\"},\"user\":{\"id\":"), number(1 + below(50000000)), text(",\"ip\":\"");
    number(10 + below(200)), text("."), number(below(256)), text("."), number(below(256));
    text("."), number(1 + below(254)), text("\",\"session\":\""), hex(24);
    text("\",\"plan\":\""), text(below(4) ? "free" : "pro");
    text("\",\"verified\":"), text(below(5) ? "true" : "false");
    const uint64_t latency_us = 200 + below(4000) * below(60) + below(1000);
    text("},\"latency_ms\":"), number(latency_us / 1000), thousandths(latency_us % 1000);
    text(",\"db\":{\"queries\":"), number(below(12)), text(",\"rows\":"), number(below(5000));
    text(",\"time_ms\":"), number(below(300)), text("."), number(below(10));
    text("},\"cache\":{\"hit\":"), text(below(3) ? "true" : "false"), text(",\"key\":\"");
    text(path), text(":"), number(below(1000000)), text("\"},\"retries\":");
    number(below(4) == 0 ? below(3) : 0), text(",\"tags\":[\""), text(pick(kTags));
    text("\",\""), text(pick(kTags)), text("\",\""), text(pick(kTags));
    text("\"],\"attrs\":{\"build\":\"2027.01."), number(1 + below(28)), text("-"), hex(7);
    text("\",\"pod\":\""), text(service), text("-"), hex(5), text("\",\"thread\":");
    number(below(256)), text(",\"sampled\":"), text(below(10) ? "false" : "true"), text("}}\n");
    if (std::fwrite(r.data(), 1, r.size(), f) != r.size())
      Fail(2, std::string("cannot write ") + out);
    written += r.size();
  }
  if (std::fclose(f) != 0) Fail(2, std::string("cannot write ") + out);
  return 0;
}

// A command's wall time and peak RSS (wait4's ru_maxrss). A child's ru_maxrss starts from
// the RSS of the process it was forked from (the kernel keeps the old mm's high-water mark
// across exec), so the fork is made here, a few MiB, not in a Python runner of 10 MiB or more.
int Run(const char* result, char** argv) {
  timespec start{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const pid_t pid = fork();
  if (pid < 0) Fail(2, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    execvp(argv[0], argv);
    std::fprintf(stderr, "rosetta-cli-peers: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) Fail(2, std::string("wait4: ") + std::strerror(errno));
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double seconds =
      double(end.tv_sec - start.tv_sec) + double(end.tv_nsec - start.tv_nsec) * 1e-9;
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::FILE* f = Open(result, "w");
  auto secs = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  std::fprintf(f, "%.6f %ld %d %.6f %.6f\n", seconds, usage.ru_maxrss, exit_code,
               secs(usage.ru_utime), secs(usage.ru_stime));
  if (std::fclose(f) != 0) Fail(2, std::string("cannot write ") + result);
  return 0;
}

uint64_t ParseU64(const char* text) {
  uint64_t v = 0;
  const std::string_view s(text);
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    Fail(2, "not a number: " + std::string(s));
  return v;
}

constexpr char kUsage[] =
    "usage: rosetta-cli-peers nlohmann-json-cbor IN OUT | rapidjson-json-json IN OUT |\n"
    "       rapidjson-stream-json-json IN OUT | simdjson-dom-parse IN | jsonl-logs OUT BYTES "
    "SEED\n";

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "nlohmann-json-cbor" && argc == 4) return NlohmannJsonCbor(argv[2], argv[3]);
  if (mode == "rapidjson-json-json" && argc == 4) return RapidJsonJsonJson(argv[2], argv[3]);
  if (mode == "rapidjson-stream-json-json" && argc == 4)
    return RapidJsonStreamJsonJson(argv[2], argv[3]);
  if (mode == "simdjson-dom-parse" && argc == 3) return SimdjsonDomParse(argv[2]);
  if (mode == "jsonl-logs" && argc == 5)
    return JsonlLogs(argv[2], ParseU64(argv[3]), ParseU64(argv[4]));
  if (mode == "run" && argc >= 4) return Run(argv[2], argv + 3);
  std::fputs(kUsage, stderr);
  return 2;
}
