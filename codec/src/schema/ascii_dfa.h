#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace rosetta::codec::schema {

// A deterministic automaton over bytes for the patterns most schemas write, built once at
// load: a search is then one table step a byte (or none: the run form, SearchRuns). A
// pattern this takes gets no RE2 (what this takes, the translation to RE2 takes too: test
// AsciiDfa.TakesOnlyWhatTheTranslationTakes); RE2 answers every other pattern, and refuses
// what it cannot run. Per call, an RE2 search of a short text costs about 650 instructions
// (its DFA cache and state lookups), this a few a byte.
//
// Taken: ECMA-262 patterns of printable ASCII literals, escaped punctuation, \d, \w,
// classes [...] (not negated) of those and of ranges, groups (?:...) and (...),
// alternation, the quantifiers ? * + {m} {m,} {m,n} (lazy or not: a search only asks
// whether a match exists), `^` first and `$` last. Every character such a pattern names is
// ASCII, and ASCII bytes occur in UTF-8 only as themselves, so a byte automaton has the
// pattern's meaning on code points: a byte from 0x80 on matches nothing, and an unanchored
// search may start at any byte. Anything else (., \s, \b, negated classes, escapes of
// letters, lookarounds, named groups, modifiers, ^ or $ elsewhere), a repetition that
// unrolls past kMaxPositions, or an automaton of more than kMaxStates states or kMaxWork
// steps to build is not taken.
class AsciiDfa {
 public:
  static constexpr size_t kMaxPositions = 512;  // NFA states after counts are unrolled
  static constexpr size_t kMaxStates = 255;     // DFA states, the dead one included
  // NFA states visited while the DFA is built: a bound on load time (the slowest pattern
  // fuzz_regex has found loads in about 3M instructions, its RE2 included).
  static constexpr size_t kMaxWork = size_t{1} << 22;
  // The two-bytes-a-step table (see Search) is tried when making it takes at most
  // kMaxPairWork steps (states x classes^2: twitter's dates take 73,000; the tables of all
  // its patterns, about 0.5M instructions), and kept when it has at most kMaxPairEntries
  // entries (64 KiB).
  static constexpr size_t kMaxPairWork = size_t{1} << 18;
  static constexpr size_t kMaxPairEntries = 32768;

  // Nothing when `ecma` is outside the form above (the caller keeps RE2 for it).
  static std::optional<AsciiDfa> Build(std::string_view ecma);

  // Two bytes a step where the automaton is small enough (pairs()), else one. A search's
  // time is its chain of dependent loads, one a step (the next state's row is the current
  // one's entry): two bytes a step halve it. The pair's column is found from the two
  // bytes' classes, which wait on nothing, and moves from every state as the two bytes
  // do one after the other (pair columns that move alike are one column). When a match of
  // a prefix suffices, accepting states keep accepting, so a match inside a pair is kept.
  // Out of line: inlined, it grew its callers past what GCC inlines into them.
  [[gnu::noinline]] bool Search(std::string_view text) const {
    if (runs_) return SearchRuns(text);
    if (pair_next_.empty()) return SearchBytes(text);
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* const end = p + text.size();
    const uint16_t* const next = pair_next_.data();
    const uint16_t* const column = pair_column_.data();
    const uint16_t* const hi = pair_hi_;
    const uint8_t* const cls = class_;
    const uint32_t accept = pair_accept_from_;
    uint32_t s = pair_start_;
    if (end_anchored_) {
      while (end - p >= 2) {
        s = next[s + column[hi[p[0]] + cls[p[1]]]];
        p += 2;
        if (s == 0) return false;  // the dead state
      }
    } else {
      while (end - p >= 2) {
        if (s >= accept) return true;
        s = next[s + column[hi[p[0]] + cls[p[1]]]];
        p += 2;
        if (s == 0) return false;
      }
    }
    if (p < end) s = next[s + pair_columns_ + cls[*p]];  // the last byte of an odd length
    return s >= accept;
  }
  // One byte a step. A state is its row's offset in next_ (the dead state's is 0); a step
  // is one load of the byte's class (which waits on nothing) and one of the next state.
  // The rows are a class each, not a byte each: the table stays a few KiB, in L1 beside
  // the rest.
  bool SearchBytes(std::string_view text) const {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* const end = p + text.size();
    const uint16_t* const next = next_.data();
    const uint8_t* const cls = class_;
    const uint32_t accept = accept_from_;
    uint32_t s = start_;
    if (end_anchored_) {
      while (p < end) {
        s = next[s + cls[*p++]];
        if (s == 0) return false;  // the dead state
      }
    } else {
      // A match of an unanchored-end pattern needs only its prefix: accept states hold.
      while (p < end) {
        if (s >= accept) return true;
        s = next[s + cls[*p++]];
        if (s == 0) return false;
      }
    }
    return s >= accept;
  }
  // A pattern of the run form (runs()): `^`, characters or classes each a fixed number of
  // times, then one that may repeat a range of times, `$` (^[0-9]{1,20}$,
  // ^[A-Za-z0-9_]{1,15}$, ^[a-z][a-z0-9-]*$, ^/images/[A-Za-z0-9+/]{24}$). Each byte's
  // place in the text then says which set it must be in, so the check is the length,
  // then one table load a byte of the fixed part, each independent of the others: no
  // chain of loads, where the automaton's next state waits on its last. A byte's entry in
  // run_member_ has bit k when the byte is in the pattern's k-th distinct set. The last
  // run's bytes are checked 32 at a time where AVX2 is compiled in (RunAllIn).
  bool SearchRuns(std::string_view text) const {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    if (n < run_min_ || n > run_max_) return false;
    unsigned bad = 0;
    for (size_t i = 0; i < run_fixed_; ++i) bad |= run_want_[i] & ~run_member_[p[i]];
#if defined(__AVX2__)
    return bad == 0 && RunAllIn(p + run_fixed_, n - run_fixed_);
#else
    unsigned all = run_last_;
    for (size_t i = run_fixed_; i < n; ++i) all &= run_member_[p[i]];
    return bad == 0 && all != 0;
#endif
  }
#if defined(__AVX2__)
  // Whether the m bytes at q are all in the last run's set: 32 bytes at a time, each
  // byte's set membership looked up by its two nibbles (two in-register table lookups: the
  // low nibble's entry has bit h when the byte with high nibble h is in the set, and the
  // high nibble's entry is bit h, none from 8 on, where no ASCII byte is). A run of 1-31
  // bytes is loaded whole when the 32 bytes from q lie in one page (the bytes past
  // its end are masked off, and a load inside a page cannot fault: LoadInPage); across a
  // page's end, byte by byte.
  bool RunAllIn(const unsigned char* q, size_t m) const {
    __m128i low_entries;
    std::memcpy(&low_entries, run_low_, 16);
    const __m256i low_table = _mm256_broadcastsi128_si256(low_entries);
    const __m256i high_table =
        _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32,
                         64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    // A mask of the 32 bytes outside the set.
    auto outside = [&](__m256i v) {
      const __m256i lo = _mm256_shuffle_epi8(low_table, _mm256_and_si256(v, nibble));
      const __m256i hi =
          _mm256_shuffle_epi8(high_table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
      return static_cast<uint32_t>(_mm256_movemask_epi8(
          _mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), _mm256_setzero_si256())));
    };
    if (m < 32) {
      if (m == 0) return true;  // (q may be the first byte of a page that cannot be read)
      if ((reinterpret_cast<uintptr_t>(q) & 4095) > 4096 - 32) {
        unsigned all = run_last_;
        for (size_t i = 0; i < m; ++i) all &= run_member_[q[i]];
        return all != 0;
      }
      return (outside(LoadInPage(q)) & ((uint32_t{1} << m) - 1)) == 0;
    }
    auto load = [](const unsigned char* at) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    };
    size_t i = 0;
    for (; m - i > 32; i += 32)
      if (outside(load(q + i)) != 0) return false;
    return outside(load(q + m - 32)) == 0;  // the last 32 (some checked already)
  }
  // The 32 bytes from q, which lie in one page, some of them past the text (masked off by
  // the caller): a load inside a page cannot fault, so the address sanitizer, which would
  // report the bytes past the text, is off here alone.
  [[gnu::no_sanitize_address]] static __m256i LoadInPage(const unsigned char* q) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  }
#endif
  // Whether the text's first byte alone rules a match out (a pattern anchored at the start
  // whose first step from it is to the dead state). Inlined where Search is called: most
  // names that patternProperties try are no match from their first byte, and the call and
  // its setup cost more than the search.
  bool RulesOut(std::string_view text) const {
    if (text.empty()) return false;
    const auto b = static_cast<unsigned char>(text[0]);
    return (dead_first_[b >> 6] >> (b & 63) & 1) != 0;
  }
  size_t states() const { return states_; }
  bool pairs() const { return !pair_next_.empty(); }
  bool runs() const { return runs_; }
  // The most bytes of a run form's fixed part, and of distinct sets in it (bits of a
  // run_member_ entry).
  static constexpr size_t kMaxRunFixed = 64;
  static constexpr size_t kMaxRunSets = 8;
  size_t bytes() const {
    return next_.size() * 2 + sizeof(class_) + pair_next_.size() * 2 + pair_column_.size() * 2 +
           (pairs() ? sizeof(pair_hi_) : 0) +
           (runs_ ? sizeof(run_member_) + sizeof(run_want_) + sizeof(run_low_) : 0);
  }

 private:
  // The pair table from the one-byte moves (moves[state][class]; state 0 dead, states from
  // `accepting` on accept).
  void MakePairs(const std::vector<std::vector<int>>& moves, size_t accepting);

  uint8_t class_[256] = {};     // a byte's class: bytes no set tells apart share one
  std::vector<uint16_t> next_;  // states x classes: the next state's row offset
  uint16_t start_ = 0;
  uint16_t accept_from_ = 0;     // the first accepting state's row offset: the rest accept too
  uint64_t dead_first_[4] = {};  // RulesOut: the bytes whose first step is to the dead state
  size_t states_ = 0;
  bool end_anchored_ = false;
  // Two bytes a step: a state is its row's offset in pair_next_, whose rows are the pair
  // columns, then a column a class (an odd length's last byte). pair_column_[class of the
  // first byte * classes + class of the second] is the pair's column; pair_hi_[byte] is
  // its class * classes.
  std::vector<uint16_t> pair_next_;
  std::vector<uint16_t> pair_column_;
  uint16_t pair_hi_[256] = {};
  uint16_t pair_start_ = 0;
  uint16_t pair_accept_from_ = 0;  // as accept_from_
  uint16_t pair_columns_ = 0;
  // The run form (SearchRuns): the sets of each byte, the set of each place of the fixed
  // part (one bit) and of the last run's bytes, the fixed part's length, and the text's
  // least and most lengths.
  bool runs_ = false;
  uint8_t run_fixed_ = 0;
  uint8_t run_last_ = 0;
  uint8_t run_member_[256] = {};
  uint8_t run_low_[16] = {};  // RunAllIn: the last run's set by low nibble, a bit a high one
  uint8_t run_want_[kMaxRunFixed] = {};
  uint64_t run_min_ = 0, run_max_ = 0;
};

}  // namespace rosetta::codec::schema
