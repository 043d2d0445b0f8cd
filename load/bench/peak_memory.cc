// Peak memory of one transcode: what the process's resident set grows by while rosetta
// transcodes one document, next to what the codec charged to the request's budget.
// It checks DESIGN.md's bound "peak memory of one transcode <= input + output + 64 KiB,
// plus the JSON parser's reusable buffers" (the input is the caller's and already resident
// before the transcode, so the RSS growth is compared with output + 64 KiB).
//
//   rosetta-peak-memory --from json --to cbor [--raw] [--allow-duplicate-keys] FILE
//
// FILE is JSON unless --raw is given; for --from cbor|msgpack a JSON FILE is first
// transcoded into that format by rosetta, outside the measurement. The transcode runs
// twice in the process, each into a new OutputBuffer: the first run also makes the
// per-thread simdjson parser's buffers resident, the second reuses them (a server's
// steady state); first_run_extra is the difference. Each run's peak is measured from a reset
// high-water mark: writing "5" to /proc/self/clear_refs resets VmHWM (and getrusage's ru_maxrss) to
// the current RSS.

#include <malloc.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "rosetta/codec/format.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/status.h"
#include "rosetta/codec/transcode.h"

namespace {

using rosetta::codec::Format;
using rosetta::codec::kInputPadding;
using rosetta::codec::OutputBuffer;
using rosetta::codec::Status;
using rosetta::codec::Transcode;
using rosetta::codec::TranscodeRequest;
using rosetta::codec::TranscodeStats;

// A field of /proc/self/status in bytes ("VmRSS:   1234 kB"), or 0.
uint64_t ProcStatusBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::strtoull(line.c_str() + n + 1, nullptr, 10) * 1024;
    }
  }
  return 0;
}

uint64_t MaxRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

bool ResetHighWaterMark() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

struct Run {
  Status status;
  TranscodeStats stats;
  uint64_t output_bytes = 0;
  uint64_t output_capacity = 0;
  uint64_t rss_before = 0;
  uint64_t hwm_after = 0;
  uint64_t maxrss_before = 0;
  uint64_t maxrss_after = 0;
  bool reset = false;

  // Growth of the resident set during the transcode: from VmHWM when the mark could be
  // reset, else from ru_maxrss (only meaningful if the transcode set a new process peak).
  uint64_t Delta() const {
    if (reset) return hwm_after > rss_before ? hwm_after - rss_before : 0;
    return maxrss_after > maxrss_before ? maxrss_after - maxrss_before : 0;
  }
};

Run Measure(const TranscodeRequest& request) {
  Run run;
  run.reset = ResetHighWaterMark();
  run.rss_before = ProcStatusBytes("VmRSS");
  run.maxrss_before = MaxRssBytes();
  {
    OutputBuffer out;
    run.status = Transcode(request, out, &run.stats);
    run.output_bytes = out.size();
    run.output_capacity = out.capacity();
    run.hwm_after = ProcStatusBytes("VmHWM");
    run.maxrss_after = MaxRssBytes();
  }
  return run;
}

int Usage() {
  std::fprintf(
      stderr,
      "usage: rosetta-peak-memory --from FMT --to FMT [--raw] [--allow-duplicate-keys] FILE\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Every block of 64 KiB or more is its own mapping, returned on free: no freed-but-resident
  // heap space can hide the transcode's growth (glibc would otherwise raise the threshold).
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024);

  std::optional<Format> from, to;
  bool raw = false;
  bool allow_duplicate_keys = false;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--from" && i + 1 < argc) {
      from = rosetta::codec::ParseFormat(argv[++i]);
    } else if (arg == "--to" && i + 1 < argc) {
      to = rosetta::codec::ParseFormat(argv[++i]);
    } else if (arg == "--raw") {
      raw = true;
    } else if (arg == "--allow-duplicate-keys") {
      allow_duplicate_keys = true;
    } else if (path == nullptr && !arg.starts_with("--")) {
      path = argv[i];
    } else {
      return Usage();
    }
  }
  if (!from || !to || path == nullptr) return Usage();

  std::string input;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "rosetta-peak-memory: cannot read %s\n", path);
      return 2;
    }
    input.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (*from != Format::kJson && !raw) {
    std::string json = std::move(input);
    json.append(kInputPadding, '\0');
    TranscodeRequest make;
    make.from = Format::kJson;
    make.to = *from;
    make.input = std::string_view(json).substr(0, json.size() - kInputPadding);
    make.input_padding = kInputPadding;
    make.options.allow_duplicate_keys = true;  // the corpus has none: same output either way
    OutputBuffer out;
    if (Status s = Transcode(make, out); !s.ok()) {
      std::fprintf(stderr, "rosetta-peak-memory: cannot make the %s input: %s\n",
                   std::string(rosetta::codec::FormatName(*from)).c_str(), s.ToString().c_str());
      return 1;
    }
    input.assign(out.view());
  }
  const size_t input_size = input.size();
  input.append(kInputPadding, '\0');  // readable padding: the JSON reader does not copy

  TranscodeRequest request;
  request.from = *from;
  request.to = *to;
  request.input = std::string_view(input).substr(0, input_size);
  request.input_padding = kInputPadding;
  request.options.allow_duplicate_keys = allow_duplicate_keys;

  const Run first = Measure(request);
  const Run second = Measure(request);
  for (const Run* r : {&first, &second}) {
    if (!r->status.ok()) {
      std::fprintf(stderr, "rosetta-peak-memory: %s\n", r->status.ToString().c_str());
      return 1;
    }
  }
  const uint64_t kSlack = 64 * 1024;
  const uint64_t first_run_extra =
      first.Delta() > second.Delta() ? first.Delta() - second.Delta() : 0;
  std::printf(
      "file=%s from=%s to=%s input_bytes=%zu output_bytes=%llu output_capacity=%llu "
      "budget_peak_bytes=%llu budget_allocated_bytes=%llu "
      "rss_delta_first=%llu rss_delta_second=%llu first_run_extra=%llu "
      "second_minus_output=%lld bound_output_plus_64k=%llu within_bound=%s duplicate_keys=%s "
      "method=%s\n",
      path, std::string(rosetta::codec::FormatName(*from)).c_str(),
      std::string(rosetta::codec::FormatName(*to)).c_str(), input_size,
      static_cast<unsigned long long>(second.output_bytes),
      static_cast<unsigned long long>(second.output_capacity),
      static_cast<unsigned long long>(second.stats.peak_bytes),
      static_cast<unsigned long long>(second.stats.allocated_bytes),
      static_cast<unsigned long long>(first.Delta()),
      static_cast<unsigned long long>(second.Delta()),
      static_cast<unsigned long long>(first_run_extra),
      static_cast<long long>(second.Delta()) - static_cast<long long>(second.output_bytes),
      static_cast<unsigned long long>(second.output_bytes + kSlack),
      second.Delta() <= second.output_bytes + kSlack ? "yes" : "no",
      allow_duplicate_keys ? "allowed" : "refused",
      first.reset && second.reset ? "VmHWM after clear_refs"
                                  : "ru_maxrss (clear_refs unavailable)");
  return 0;
}
