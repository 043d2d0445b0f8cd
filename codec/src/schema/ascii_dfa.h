#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace rosetta::codec::schema {

// A deterministic automaton over bytes for the patterns most schemas write, built once at
// load: a search is then one table step a byte. RE2 compiles every pattern too (it alone
// decides what is refused, and answers every pattern this does not take); per call, an RE2
// search of a short text costs about 650 instructions (its DFA cache and state lookups),
// this a few a byte.
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
  // NFA states visited while the DFA is built (about 10 ms): a bound on load time.
  static constexpr size_t kMaxWork = size_t{1} << 22;

  // Nothing when `ecma` is outside the form above (the caller keeps RE2 for it).
  static std::optional<AsciiDfa> Build(std::string_view ecma);

  // A state is its row's offset in next_ (the dead state's is 0); a step is one load of
  // the byte's class (which waits on nothing) and one of the next state. The rows are a
  // class each, not a byte each: the table stays a few KiB, in L1 beside the rest.
  bool Search(std::string_view text) const {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* const end = p + text.size();
    const uint16_t* const next = next_.data();
    const uint8_t* const cls = class_;
    const uint8_t* const accept = accept_.data();
    uint32_t s = start_;
    if (end_anchored_) {
      while (p < end) {
        s = next[s + cls[*p++]];
        if (s == 0) return false;  // the dead state
      }
    } else {
      // A match of an unanchored-end pattern needs only its prefix: accept states hold.
      while (p < end) {
        if (accept[s]) return true;
        s = next[s + cls[*p++]];
        if (s == 0) return false;
      }
    }
    return accept[s] != 0;
  }
  size_t states() const { return states_; }
  size_t bytes() const { return next_.size() * 2 + accept_.size() + sizeof(class_); }

 private:
  uint8_t class_[256] = {};      // a byte's class: bytes no set tells apart share one
  std::vector<uint16_t> next_;   // states x classes: the next state's row offset
  std::vector<uint8_t> accept_;  // by row offset: a match ends in that state
  uint16_t start_ = 0;
  size_t states_ = 0;
  bool end_anchored_ = false;
};

}  // namespace rosetta::codec::schema
