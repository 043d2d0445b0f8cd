// What the JSON Schema benchmark's in-process ("warm") harnesses share: reading the data
// set, timing passes over it, the heap a loaded schema holds and the process's peak RSS.
// Used by rosetta-schema-valijson and rosetta-schema-warm (load/bench/schema).
#pragma once

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace schema_bench {

using Clock = std::chrono::steady_clock;

inline std::string ReadFile(const char* program, const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", program, path);
    std::exit(2);
  }
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

// Bytes the process's malloc has handed out and not had back (every arena, and blocks
// mapped on their own): what a loaded schema holds is this after its load less before.
inline size_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

inline double Seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

inline double Median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

inline long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

// The warm mode's flags: --runs N, --warmup-s S, --min-run-s S.
struct WarmOptions {
  int runs = 10;
  double warmup_s = 1;
  double min_run_s = 0.2;
  // Takes argv[i] (and its value, advancing i) when it is one of them.
  bool Take(int argc, char** argv, int& i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) return false;
    if (a == "--runs") {
      runs = std::atoi(argv[++i]);
    } else if (a == "--warmup-s") {
      warmup_s = std::atof(argv[++i]);
    } else if (a == "--min-run-s") {
      min_run_s = std::atof(argv[++i]);
    } else {
      return false;
    }
    return true;
  }
};

// `warmup_s` seconds of passes, then `runs` timed runs of as many passes as take
// `min_run_s` (at least one): each run's time of one pass.
struct WarmTimes {
  int warmup_passes = 0;
  int passes_per_run = 1;
  std::vector<double> times;
};
template <class Pass>
WarmTimes TimePasses(Pass&& pass, const WarmOptions& o) {
  WarmTimes w;
  const auto warm_start = Clock::now();
  const auto warm_end = warm_start + std::chrono::duration<double>(o.warmup_s);
  do {
    pass();
    ++w.warmup_passes;
  } while (Clock::now() < warm_end);
  const double pass_s = Seconds(warm_start, Clock::now()) / w.warmup_passes;
  w.passes_per_run = std::max(1, static_cast<int>(std::ceil(o.min_run_s / pass_s)));
  for (int r = 0; r < o.runs; ++r) {
    const auto t0 = Clock::now();
    for (int k = 0; k < w.passes_per_run; ++k) pass();
    w.times.push_back(Seconds(t0, Clock::now()) / w.passes_per_run);
  }
  return w;
}

// The JSON line a warm run prints (schema_bench.py reads it): records, invalid, bytes,
// the median pass, MB/s, records/s, peak RSS, every run, and the caller's `extra` fields
// (each `"name":value,`).
inline void PrintWarm(size_t records, size_t invalid, size_t bytes, const std::string& extra,
                      const WarmTimes& w) {
  const double m = Median(w.times);
  std::printf(
      "{\"records\":%zu,\"invalid\":%zu,\"bytes\":%zu,%s\"warmup_passes\":%d,"
      "\"passes_per_run\":%d,\"median_s\":%.6f,\"mbps\":%.3f,\"records_per_s\":%.1f,"
      "\"peak_rss_kib\":%ld,\"runs_s\":[",
      records, invalid, bytes, extra.c_str(), w.warmup_passes, w.passes_per_run, m, bytes / m / 1e6,
      records / m, PeakRssKib());
  for (size_t i = 0; i < w.times.size(); ++i) std::printf("%s%.6f", i ? "," : "", w.times[i]);
  std::printf("]}\n");
}

}  // namespace schema_bench
