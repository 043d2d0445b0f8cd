// rosetta-compare: the format report for one document. For each of JSON, CBOR and
// MessagePack (and protobuf when a schema is given): size, zstd size, encode throughput
// (CBOR events into the format) and decode throughput (Validate). A benchmark tool, kept
// out of the shipped `rosetta` CLI (which does not link zstd).
#include <time.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::cli {
namespace {

using codec::Format;

constexpr char kUsage[] =
    "usage: rosetta-compare [--format FMT] [--descriptor-set FILE --message-type NAME]\n"
    "                       [--runs N] [--min-time S] [--zstd-level L] [--tsv] [MAPPING OPTIONS] "
    "FILE\n"
    "  FILE in FMT (default json). For json, cbor, msgpack (and protobuf with a schema): the\n"
    "  document's size as rosetta writes it, its zstd size, encode MB/s (CBOR events into the\n"
    "  format: Transcode from CBOR) and decode MB/s (Validate), MB = 10^6 bytes of that format;\n"
    "  medians of N runs (default 5) of at least S seconds of CPU time each (default 0.2).\n"
    "  MAPPING OPTIONS: --allow-duplicate-keys --base64-standard --nonfinite-as-null "
    "--bignum-as-double\n";

[[noreturn]] void Usage(const std::string& message) {
  std::fprintf(stderr, "rosetta: compare: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

// A document with kInputPadding readable bytes after it, as a server keeps its input.
struct Padded {
  std::string bytes;
  size_t size = 0;
  std::string_view view() const { return {bytes.data(), size}; }
  static Padded Of(std::string_view data) {
    Padded p;
    p.bytes.reserve(data.size() + codec::kInputPadding);
    p.bytes.assign(data);
    p.bytes.append(codec::kInputPadding, '\0');
    p.size = data.size();
    return p;
  }
};

struct Row {
  Format format;
  size_t bytes = 0, zstd_bytes = 0;
  double encode_s = 0, decode_s = 0;  // per document, median of the runs
};

// This thread's CPU time: on a shared machine, wall time would count the time other
// processes held the core.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Median over `runs` of the CPU time per call, each run repeating f for at least min_time.
template <class F>
double MedianSeconds(int runs, double min_time, F&& f) {
  std::vector<double> per_call;
  for (int r = 0; r < runs; ++r) {
    uint64_t n = 0;
    const double start = ThreadCpuSeconds();
    double elapsed = 0;
    do {
      f();
      ++n;
      elapsed = ThreadCpuSeconds() - start;
    } while (elapsed < min_time);
    per_call.push_back(elapsed / static_cast<double>(n));
  }
  std::sort(per_call.begin(), per_call.end());
  const size_t m = per_call.size();
  return m % 2 ? per_call[m / 2] : (per_call[m / 2 - 1] + per_call[m / 2]) / 2;
}

[[noreturn]] void Refused(std::string_view what, const codec::Status& s) {
  std::fprintf(stderr, "rosetta-compare: %s: %s\n", std::string(what).c_str(),
               s.ToString(true).c_str());
  std::exit(1);
}

}  // namespace

int RunCompare(int argc, char** argv) {  // argv[0]: the first argument
  Format input_format = Format::kJson;
  std::string path, message_type;
  std::vector<std::string> descriptor_sets;
  int runs = 5;
  double min_time = 0.2;
  int zstd_level = ZSTD_CLEVEL_DEFAULT;
  bool tsv = false;
  codec::MappingOptions options;
  for (int i = 0; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--format") {
      auto f = codec::ParseFormat(value());
      if (!f) Usage("--format: json, cbor, msgpack or protobuf");
      input_format = *f;
    } else if (a == "--descriptor-set") {
      descriptor_sets.emplace_back(value());
    } else if (a == "--message-type") {
      message_type = value();
    } else if (a == "--runs") {
      runs = std::atoi(value());
      if (runs < 1) Usage("--runs needs a positive integer");
    } else if (a == "--min-time") {
      char* end = nullptr;
      const char* v = value();
      min_time = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(min_time >= 0)) Usage("--min-time needs seconds");
    } else if (a == "--zstd-level") {
      zstd_level = std::atoi(value());
    } else if (a == "--tsv") {
      tsv = true;
    } else if (a == "--allow-duplicate-keys") {
      options.allow_duplicate_keys = true;
    } else if (a == "--base64-standard") {
      options.base64_standard = true;
    } else if (a == "--nonfinite-as-null") {
      options.nonfinite_as_null = true;
    } else if (a == "--bignum-as-double") {
      options.bignum_as_double = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "-" || !a.starts_with("-")) {
      if (!path.empty()) Usage("more than one input");
      path = std::string(a);
    } else {
      Usage("unknown option '" + std::string(a) + "'");
    }
  }
  if (path.empty()) Usage("missing FILE");
  if (descriptor_sets.empty() != message_type.empty())
    Usage("protobuf needs both --descriptor-set and --message-type");
  if (input_format == Format::kProtobuf && descriptor_sets.empty())
    Usage("--format protobuf needs a schema");

  std::unique_ptr<codec::Schema> schema;
  if (!descriptor_sets.empty()) {
    std::string error;
    schema = codec::Schema::Load(descriptor_sets, &error);
    if (!schema) {
      std::fprintf(stderr, "rosetta: compare: %s\n", error.c_str());
      return 2;
    }
  }

  std::string data;
  {
    FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      std::fprintf(stderr, "rosetta: compare: cannot open %s: %s\n", path.c_str(),
                   std::strerror(errno));
      return 2;
    }
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
    if (f != stdin) std::fclose(f);
  }
  const Padded input = Padded::Of(data);

  // Limits as large as the CLI's defaults allow: the report is about formats, not limits.
  auto request = [&](Format from, Format to, std::string_view in) {
    codec::TranscodeRequest r;
    r.from = from;
    r.to = to;
    r.input = in;
    r.input_padding = codec::kInputPadding;
    r.options = options;
    if (from == Format::kProtobuf || to == Format::kProtobuf) {
      r.schema = schema.get();
      r.message_type = message_type;
    }
    return r;
  };

  // The events source: the document as CBOR, written once.
  codec::OutputBuffer cbor_out;
  if (codec::Status s =
          codec::Transcode(request(input_format, Format::kCbor, input.view()), cbor_out);
      !s.ok()) {
    Refused(std::string(codec::FormatName(input_format)) + " -> cbor", s);
  }
  const Padded cbor = Padded::Of(cbor_out.view());

  std::vector<Format> formats = {Format::kJson, Format::kCbor, Format::kMsgpack};
  if (schema) formats.push_back(Format::kProtobuf);
  std::vector<Row> rows;
  for (Format to : formats) {
    Row row;
    row.format = to;
    codec::OutputBuffer out;
    const codec::TranscodeRequest encode = request(Format::kCbor, to, cbor.view());
    if (codec::Status s = codec::Transcode(encode, out); !s.ok())
      Refused("cbor -> " + std::string(codec::FormatName(to)), s);
    const Padded doc = Padded::Of(out.view());
    row.bytes = doc.size;

    std::string compressed(ZSTD_compressBound(doc.size), '\0');
    const size_t z = ZSTD_compress(compressed.data(), compressed.size(), doc.view().data(),
                                   doc.size, zstd_level);
    if (ZSTD_isError(z)) {
      std::fprintf(stderr, "rosetta: compare: zstd: %s\n", ZSTD_getErrorName(z));
      return 2;
    }
    row.zstd_bytes = z;

    const codec::TranscodeRequest decode = request(to, to, doc.view());
    if (codec::Status s = codec::Validate(decode); !s.ok())
      Refused("validate " + std::string(codec::FormatName(to)), s);
    row.encode_s = MedianSeconds(runs, min_time, [&] { (void)codec::Transcode(encode, out); });
    row.decode_s = MedianSeconds(runs, min_time, [&] { (void)codec::Validate(decode); });
    rows.push_back(row);
  }

  const double json_bytes = static_cast<double>(rows[0].bytes);
  auto mbps = [](size_t bytes, double s) {
    return s > 0 ? static_cast<double>(bytes) / s / 1e6 : 0.0;
  };
  if (tsv) {
    std::printf("format\tbytes\tzstd_bytes\tencode_mb_s\tencode_us\tdecode_mb_s\tdecode_us\n");
    for (const Row& r : rows) {
      std::printf("%s\t%zu\t%zu\t%.1f\t%.2f\t%.1f\t%.2f\n",
                  std::string(codec::FormatName(r.format)).c_str(), r.bytes, r.zstd_bytes,
                  mbps(r.bytes, r.encode_s), r.encode_s * 1e6, mbps(r.bytes, r.decode_s),
                  r.decode_s * 1e6);
    }
    return 0;
  }
  std::printf(
      "%s: %zu bytes of %s; medians of %d runs of >= %.2f s CPU time; MB = 10^6 bytes of each "
      "format's encoding\n\n",
      path.c_str(), input.size, std::string(codec::FormatName(input_format)).c_str(), runs,
      min_time);
  std::printf(
      "| format | bytes | vs json | zstd -%d bytes | zstd vs json | encode MB/s | encode us | "
      "decode MB/s | decode us |\n",
      zstd_level);
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %zu | %.0f%% | %zu | %.0f%% | %.0f | %.1f | %.0f | %.1f |\n",
                std::string(codec::FormatName(r.format)).c_str(), r.bytes,
                100.0 * static_cast<double>(r.bytes) / json_bytes, r.zstd_bytes,
                100.0 * static_cast<double>(r.zstd_bytes) / json_bytes, mbps(r.bytes, r.encode_s),
                r.encode_s * 1e6, mbps(r.bytes, r.decode_s), r.decode_s * 1e6);
  }
  std::printf(
      "\nencode: Transcode from the document's CBOR form (the CBOR read is included); "
      "decode: Validate (read, checked, nothing written).\n");
  return 0;
}

}  // namespace rosetta::cli

int main(int argc, char** argv) { return rosetta::cli::RunCompare(argc - 1, argv + 1); }
