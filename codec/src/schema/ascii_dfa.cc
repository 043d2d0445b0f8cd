#include "schema/ascii_dfa.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

namespace rosetta::codec::schema {
namespace {

constexpr uint32_t kMany = ~uint32_t{0};

// A set of ASCII characters: bits 0-63 and 64-127.
struct Chars {
  uint64_t low = 0, high = 0;
  void Add(unsigned c) { (c < 64 ? low : high) |= uint64_t{1} << (c & 63); }
  void AddRange(unsigned from, unsigned to) {
    for (unsigned c = from; c <= to; ++c) Add(c);
  }
  bool Has(unsigned c) const {
    return c < 64 ? (low >> c & 1) != 0 : c < 128 && (high >> (c - 64) & 1) != 0;
  }
  bool Empty() const { return (low | high) == 0; }
  bool operator==(const Chars&) const = default;
};

struct Ast {
  enum Kind { kChars, kConcat, kAlt, kRepeat };
  explicit Ast(Kind k) : kind(k) {}
  Kind kind;
  Chars chars;
  std::vector<int> kids;
  uint32_t min = 1, max = 1;
};

bool IsPrintable(char c) { return c >= ' ' && c <= '~'; }
// ECMA-262's SyntaxCharacter.
bool IsSyntax(char c) {
  switch (c) {
    case '^':
    case '$':
    case '\\':
    case '.':
    case '*':
    case '+':
    case '?':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '|':
      return true;
    default:
      return false;
  }
}
// What an identity escape may name: ASCII punctuation (the translation takes `\-`, `\_`,
// `\"` and the other marks as themselves).
bool IsPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

// Recursive descent over the taken subset; any other construct ends it with ok = false.
class Parser {
 public:
  Parser(std::string_view s, std::vector<Ast>* ast) : s_(s), ast_(ast) {}

  // The whole pattern: the root node, with the anchors found.
  int Pattern(bool* start_anchored, bool* end_anchored) {
    if (!s_.empty() && s_[0] == '^') {
      *start_anchored = true;
      i_ = 1;
    }
    const int root = Alternation();
    if (!ok_ || i_ != s_.size()) return -1;
    *end_anchored = end_anchored_;
    // `^a|b$` anchors one alternative each: not this form.
    if ((*start_anchored || end_anchored_) && (*ast_)[root].kind == Ast::kAlt) return -1;
    return root;
  }

 private:
  int New(Ast a) {
    ast_->push_back(std::move(a));
    return static_cast<int>(ast_->size() - 1);
  }
  bool Fail() { return ok_ = false; }

  int Alternation() {
    std::vector<int> alts{Sequence()};
    while (ok_ && i_ < s_.size() && s_[i_] == '|') {
      ++i_;
      alts.push_back(Sequence());
    }
    if (!ok_) return -1;
    if (alts.size() == 1) return alts[0];
    Ast a(Ast::kAlt);
    a.kids = std::move(alts);
    return New(std::move(a));
  }

  int Sequence() {
    Ast seq(Ast::kConcat);
    while (ok_ && i_ < s_.size() && s_[i_] != '|' && s_[i_] != ')') {
      if (s_[i_] == '$') {
        // Only the pattern's last character, outside every group.
        if (depth_ != 0 || i_ + 1 != s_.size()) return Fail(), -1;
        end_anchored_ = true;
        ++i_;
        break;
      }
      const int atom = Atom();
      if (!ok_) return -1;
      seq.kids.push_back(Quantified(atom));
    }
    return ok_ ? New(std::move(seq)) : -1;
  }

  int Quantified(int atom) {
    if (i_ >= s_.size()) return atom;
    uint32_t min = 1, max = 1;
    const char q = s_[i_];
    if (q == '?') {
      min = 0;
    } else if (q == '*') {
      min = 0;
      max = kMany;
    } else if (q == '+') {
      max = kMany;
    } else if (q == '{') {
      ++i_;
      if (!Number(&min)) return Fail(), -1;
      max = min;
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        max = kMany;
        if (i_ < s_.size() && s_[i_] != '}' && !Number(&max)) return Fail(), -1;
      }
      if (i_ >= s_.size() || s_[i_] != '}' || max < min) return Fail(), -1;
    } else {
      return atom;
    }
    ++i_;
    if (i_ < s_.size() && s_[i_] == '?') ++i_;  // lazy: the same matches exist
    if (i_ < s_.size() && (s_[i_] == '*' || s_[i_] == '+' || s_[i_] == '?' || s_[i_] == '{'))
      return Fail(), -1;
    Ast r(Ast::kRepeat);
    r.kids = {atom};
    r.min = min;
    r.max = max;
    return New(std::move(r));
  }

  bool Number(uint32_t* n) {
    const size_t start = i_;
    uint32_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9' && i_ - start < 4) {
      v = v * 10 + static_cast<uint32_t>(s_[i_] - '0');
      ++i_;
    }
    *n = v;
    return i_ > start && (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9');
  }

  int Atom() {
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      if (i_ < s_.size() && s_[i_] == '?') {
        if (i_ + 1 >= s_.size() || s_[i_ + 1] != ':') return Fail(), -1;  // lookaround, name
        i_ += 2;
      }
      if (++depth_ > 64) return Fail(), -1;
      const int inner = Alternation();
      --depth_;
      if (!ok_ || i_ >= s_.size() || s_[i_] != ')') return Fail(), -1;
      ++i_;
      return inner;
    }
    Ast a(Ast::kChars);
    if (c == '[') {
      if (!Class(&a.chars)) return Fail(), -1;
    } else if (c == '\\') {
      int one;
      if (!Escape(&a.chars, &one)) return Fail(), -1;
      if (one >= 0) a.chars.Add(static_cast<unsigned>(one));
    } else if (IsPrintable(c) && !IsSyntax(c)) {
      a.chars.Add(static_cast<unsigned char>(c));
      ++i_;
    } else {
      return Fail(), -1;
    }
    return New(std::move(a));
  }

  // \d and \w add to *chars (*one = -1); an escaped punctuation mark is *one.
  bool Escape(Chars* chars, int* one) {
    if (i_ + 1 >= s_.size()) return false;
    const char d = s_[i_ + 1];
    i_ += 2;
    *one = -1;
    if (d == 'd' || d == 'w') {
      chars->AddRange('0', '9');
      if (d == 'w') {
        chars->AddRange('a', 'z');
        chars->AddRange('A', 'Z');
        chars->Add('_');
      }
      return true;
    }
    if (!IsPunct(d)) return false;
    *one = static_cast<unsigned char>(d);
    return true;
  }

  // One class member: a literal or escaped mark (*one), or \d / \w added (*one = -1).
  bool Member(Chars* chars, int* one) {
    if (i_ >= s_.size()) return false;
    const char a = s_[i_];
    if (a == '\\') return Escape(chars, one);
    if (!IsPrintable(a) || a == '[' || a == ']') return false;
    *one = static_cast<unsigned char>(a);
    ++i_;
    return true;
  }

  bool Class(Chars* chars) {
    ++i_;  // [
    if (i_ < s_.size() && (s_[i_] == '^' || s_[i_] == ']')) return false;
    while (i_ < s_.size() && s_[i_] != ']') {
      int from;
      if (!Member(chars, &from)) return false;
      if (i_ + 1 < s_.size() && s_[i_] == '-' && s_[i_ + 1] != ']') {
        ++i_;
        int to;
        if (from < 0 || !Member(chars, &to) || to < 0 || to < from) return false;
        chars->AddRange(static_cast<unsigned>(from), static_cast<unsigned>(to));
        if (i_ + 1 < s_.size() && s_[i_] == '-' && s_[i_ + 1] != ']') return false;
      } else if (from >= 0) {
        chars->Add(static_cast<unsigned>(from));
      }
    }
    if (i_ >= s_.size() || chars->Empty()) return false;
    ++i_;  // ]
    return true;
  }

  std::string_view s_;
  std::vector<Ast>* ast_;
  size_t i_ = 0;
  int depth_ = 0;
  bool ok_ = true;
  bool end_anchored_ = false;
};

// The run form of AsciiDfa::SearchRuns: the pattern's sets in order, each with its least
// and most count (kMany: no most). False for any other node than a set, a repetition of
// one, or a sequence of those (a group without alternation is its sequence).
struct Run {
  Chars chars;
  uint32_t min, max;
};
bool RunsOf(const std::vector<Ast>& ast, int node, std::vector<Run>* runs) {
  const Ast& a = ast[node];
  switch (a.kind) {
    case Ast::kChars:
      runs->push_back(Run{a.chars, 1, 1});
      return true;
    case Ast::kRepeat:
      if (ast[a.kids[0]].kind != Ast::kChars) return false;
      runs->push_back(Run{ast[a.kids[0]].chars, a.min, a.max});
      return true;
    case Ast::kConcat:
      for (int k : a.kids)
        if (!RunsOf(ast, k, runs)) return false;
      return true;
    case Ast::kAlt:
      return false;
  }
  return false;
}

// Thompson's construction: a state takes a character of `chars` to `out`, or moves on
// `eps` without one.
struct NfaState {
  Chars chars;
  int out = -1;
  std::vector<int> eps;
};

class NfaBuilder {
 public:
  NfaBuilder(const std::vector<Ast>& ast, std::vector<NfaState>* nfa) : ast_(ast), nfa_(nfa) {}

  // The fragment (start, end) of a node; false past kMaxPositions states.
  bool Build(int node, int* start, int* end) {
    const Ast& a = ast_[node];
    switch (a.kind) {
      case Ast::kChars: {
        const int s = New(), e = New();
        if (s < 0 || e < 0) return false;
        (*nfa_)[s].chars = a.chars;
        (*nfa_)[s].out = e;
        *start = s;
        *end = e;
        return true;
      }
      case Ast::kConcat: {
        int s = New();
        if (s < 0) return false;
        int cur = s;
        for (int k : a.kids) {
          int ks, ke;
          if (!Build(k, &ks, &ke)) return false;
          (*nfa_)[cur].eps.push_back(ks);
          cur = ke;
        }
        *start = s;
        *end = cur;
        return true;
      }
      case Ast::kAlt: {
        const int s = New(), e = New();
        if (s < 0 || e < 0) return false;
        for (int k : a.kids) {
          int ks, ke;
          if (!Build(k, &ks, &ke)) return false;
          (*nfa_)[s].eps.push_back(ks);
          (*nfa_)[ke].eps.push_back(e);
        }
        *start = s;
        *end = e;
        return true;
      }
      case Ast::kRepeat: {
        const int s = New();
        if (s < 0) return false;
        int cur = s;
        for (uint32_t n = 0; n < a.min; ++n) {
          int ks, ke;
          if (!Build(a.kids[0], &ks, &ke)) return false;
          (*nfa_)[cur].eps.push_back(ks);
          cur = ke;
        }
        if (a.max == kMany) {
          const int loop = New();
          int ks, ke;
          if (loop < 0 || !Build(a.kids[0], &ks, &ke)) return false;
          (*nfa_)[cur].eps.push_back(loop);
          (*nfa_)[loop].eps.push_back(ks);
          (*nfa_)[ke].eps.push_back(loop);
          cur = loop;
        } else if (a.max > a.min) {
          const int fin = New();
          if (fin < 0) return false;
          for (uint32_t n = a.min; n < a.max; ++n) {
            int ks, ke;
            if (!Build(a.kids[0], &ks, &ke)) return false;
            (*nfa_)[cur].eps.push_back(fin);
            (*nfa_)[cur].eps.push_back(ks);
            cur = ke;
          }
          (*nfa_)[cur].eps.push_back(fin);
          cur = fin;
        }
        *start = s;
        *end = cur;
        return true;
      }
    }
    return false;
  }

 private:
  int New() {
    if (nfa_->size() >= AsciiDfa::kMaxPositions) return -1;
    nfa_->emplace_back();
    return static_cast<int>(nfa_->size() - 1);
  }

  const std::vector<Ast>& ast_;
  std::vector<NfaState>* nfa_;
};

}  // namespace

std::optional<AsciiDfa> AsciiDfa::Build(std::string_view ecma) {
  std::vector<Ast> ast;
  bool start_anchored = false, end_anchored = false;
  Parser parser(ecma, &ast);
  const int root = parser.Pattern(&start_anchored, &end_anchored);
  if (root < 0) return std::nullopt;
  std::vector<NfaState> nfa;
  int nfa_start, nfa_accept;
  if (!NfaBuilder(ast, &nfa).Build(root, &nfa_start, &nfa_accept)) return std::nullopt;

  // Subset construction over sets of NFA states as bitsets of `words` words (at most
  // kMaxPositions bits): each state's closure is made once, and a step's set is the union
  // of the closures of the states its byte moves to. An unanchored search may start at
  // every byte: the start state's closure joins every step's set.
  const size_t positions = nfa.size();
  const size_t words = (positions + 63) / 64;
  auto has = [](const uint64_t* set, size_t s) { return (set[s >> 6] >> (s & 63) & 1) != 0; };
  auto add = [](uint64_t* set, size_t s) { set[s >> 6] |= uint64_t{1} << (s & 63); };
  auto count = [words](const uint64_t* set) {
    size_t n = 0;
    for (size_t w = 0; w < words; ++w) n += static_cast<size_t>(std::popcount(set[w]));
    return n;
  };
  std::vector<uint64_t> closure_of(positions * words, 0);  // state s's at s * words
  {
    std::vector<int> stack;
    for (size_t s = 0; s < positions; ++s) {
      uint64_t* c = &closure_of[s * words];
      add(c, s);
      stack.assign(1, static_cast<int>(s));
      while (!stack.empty()) {
        const int x = stack.back();
        stack.pop_back();
        for (int t : nfa[x].eps) {
          if (!has(c, static_cast<size_t>(t))) {
            add(c, static_cast<size_t>(t));
            stack.push_back(t);
          }
        }
      }
    }
  }
  const uint64_t* const start_set = &closure_of[static_cast<size_t>(nfa_start) * words];
  const size_t start_size = count(start_set);

  // Bytes no character set tells apart move alike: one representative each, the lowest
  // byte of its class. The classes start as all of ASCII and are split by each distinct
  // set in turn (a byte-by-byte comparison over every NFA state was a quarter of the
  // time package's schema took to compile).
  std::vector<Chars> byte_classes(1, Chars{~uint64_t{0}, ~uint64_t{0}});
  std::vector<Chars> splitters;
  std::vector<Chars> split;
  for (const NfaState& st : nfa) {
    if (st.out < 0) continue;
    const Chars s = st.chars;
    bool seen = false;
    for (const Chars& t : splitters) seen |= t == s;
    if (seen) continue;
    splitters.push_back(s);
    split.clear();
    for (const Chars& c : byte_classes) {
      const Chars in{c.low & s.low, c.high & s.high};
      const Chars out{c.low & ~s.low, c.high & ~s.high};
      if (!in.Empty()) split.push_back(in);
      if (!out.Empty()) split.push_back(out);
    }
    byte_classes.swap(split);
  }
  std::vector<int> rep_of(128, -1);
  for (const Chars& c : byte_classes) {
    const int rep = c.low != 0 ? std::countr_zero(c.low) : 64 + std::countr_zero(c.high);
    for (unsigned b = 0; b < 128; ++b)
      if (c.Has(b)) rep_of[b] = rep;
  }
  std::vector<int> reps;  // in ascending order
  for (int b = 0; b < 128; ++b)
    if (rep_of[b] == b) reps.push_back(b);

  AsciiDfa dfa;
  dfa.end_anchored_ = end_anchored;
  // The DFA states' sets (state d's at d * words; 0: dead, no NFA state, unless an
  // unanchored search restarts everywhere) and their sizes, found by an open-addressing
  // table of their ids (more than twice kMaxStates places).
  std::vector<uint64_t> sets(words, 0);
  std::vector<size_t> set_size(1, 0);
  constexpr size_t kIdPlaces = 512;
  static_assert(kIdPlaces >= 2 * kMaxStates);
  std::vector<int> id_at(kIdPlaces, -1);
  auto id_of = [&](const uint64_t* set) -> int {
    uint64_t h = 0, any = 0;
    for (size_t w = 0; w < words; ++w) {
      h = (h ^ set[w]) * 0x9e3779b97f4a7c15ull;
      any |= set[w];
    }
    if (any == 0) return 0;
    for (size_t i = h >> 55;; i = (i + 1) & (kIdPlaces - 1)) {
      const int id = id_at[i];
      if (id < 0) {
        if (set_size.size() >= kMaxStates) return -1;
        const int made = static_cast<int>(set_size.size());
        sets.insert(sets.end(), set, set + words);
        set_size.push_back(count(set));
        id_at[i] = made;
        return made;
      }
      if (std::equal(set, set + words, &sets[static_cast<size_t>(id) * words])) return id;
    }
  };
  const int start = id_of(start_set);
  if (start < 0) return std::nullopt;
  // Per representative byte, the NFA states it moves out of.
  std::vector<uint64_t> moves_on(128 * words, 0);
  for (size_t s = 0; s < positions; ++s)
    if (nfa[s].out >= 0)
      for (int r : reps)
        if (nfa[s].chars.Has(static_cast<unsigned>(r)))
          add(&moves_on[static_cast<size_t>(r) * words], s);
  std::vector<uint64_t> move(words);
  size_t work = 0;  // NFA states visited: past kMaxWork the pattern is RE2's alone
  // by_class[d]: state d's next state per class (the representatives', then the high
  // bytes').
  const size_t classes = reps.size() + 1;
  std::vector<std::vector<int>> by_class(1, std::vector<int>(classes, 0));  // dead
  for (size_t d = 1; d < set_size.size(); ++d) {
    int by_rep[128];
    for (int r : reps) {
      work += set_size[d] + start_size;
      if (work > kMaxWork) return std::nullopt;
      const uint64_t* const set = &sets[d * words];  // (id_of may move sets: read first)
      const uint64_t* const on = &moves_on[static_cast<size_t>(r) * words];
      for (size_t w = 0; w < words; ++w) move[w] = start_anchored ? 0 : start_set[w];
      for (size_t w = 0; w < words; ++w) {
        for (uint64_t bits = set[w] & on[w]; bits != 0; bits &= bits - 1) {
          const size_t s = w * 64 + static_cast<size_t>(std::countr_zero(bits));
          const uint64_t* const c = &closure_of[static_cast<size_t>(nfa[s].out) * words];
          for (size_t v = 0; v < words; ++v) move[v] |= c[v];
        }
      }
      const int id = id_of(move.data());
      if (id < 0) return std::nullopt;
      by_rep[r] = id;
    }
    std::vector<int> row(classes);
    for (size_t k = 0; k < reps.size(); ++k) row[k] = by_rep[reps[k]];
    // A byte from 0x80 on is in no set: only a restart survives it.
    int high = 0;
    if (!start_anchored) {
      high = id_of(start_set);
      if (high < 0) return std::nullopt;
    }
    row[reps.size()] = high;
    by_class.push_back(std::move(row));
  }
  // States as row offsets: kMaxStates x 129 classes stays inside 16 bits.
  static_assert(kMaxStates * 129 <= 0xffff);
  for (unsigned b = 0; b < 256; ++b) {
    size_t k = reps.size();
    if (b < 128) k = std::find(reps.begin(), reps.end(), rep_of[b]) - reps.begin();
    dfa.class_[b] = static_cast<uint8_t>(k);
  }
  // States renumbered: the dead one (0), the others that do not accept, then those that
  // do, so that a state accepts when its number is at least `accepting`: a compare, where
  // a table by state would be a load (from a line of its own, rows being far apart).
  const size_t states = set_size.size();
  std::vector<int> number(states);
  size_t accepting = 0;
  for (int pass = 0; pass < 2; ++pass) {
    size_t next_number = pass == 0 ? 0 : accepting;
    for (size_t d = 0; d < states; ++d) {
      const bool accepts = d != 0 && has(&sets[d * words], static_cast<size_t>(nfa_accept));
      if (accepts == (pass == 1)) number[d] = static_cast<int>(next_number++);
    }
    if (pass == 0) accepting = next_number;
  }
  std::vector<std::vector<int>> moves(states, std::vector<int>(classes));
  for (size_t d = 0; d < states; ++d)
    for (size_t k = 0; k < classes; ++k) moves[number[d]][k] = number[by_class[d][k]];
  dfa.states_ = states;
  dfa.next_.resize(states * classes);
  for (size_t d = 0; d < states; ++d)
    for (size_t k = 0; k < classes; ++k)
      dfa.next_[d * classes + k] = static_cast<uint16_t>(moves[d][k] * classes);
  dfa.start_ = static_cast<uint16_t>(number[start] * classes);
  dfa.accept_from_ = static_cast<uint16_t>(accepting * classes);
  if (dfa.start_ < dfa.accept_from_) {  // (an accepting start matches every text)
    for (unsigned b = 0; b < 256; ++b)
      if (dfa.next_[dfa.start_ + dfa.class_[b]] == 0)
        dfa.dead_first_[b >> 6] |= uint64_t{1} << (b & 63);
  }
  dfa.MakePairs(moves, accepting);
  if (dfa.pairs()) {
    const size_t row = dfa.pair_columns_ + classes;
    dfa.pair_start_ = static_cast<uint16_t>(number[start] * row);
    dfa.pair_accept_from_ = static_cast<uint16_t>(accepting * row);
  }
  // The run form (SearchRuns), when the pattern has it.
  if (!start_anchored || !end_anchored) return dfa;
  std::vector<Run> runs;
  if (!RunsOf(ast, root, &runs) || runs.empty()) return dfa;
  // Every run but the last a fixed count, so that a byte's place says which run it is in.
  uint64_t fixed = 0;
  for (size_t r = 0; r + 1 < runs.size(); ++r) {
    if (runs[r].min != runs[r].max) return dfa;
    fixed += runs[r].min;
  }
  if (fixed > kMaxRunFixed) return dfa;
  std::vector<Chars> run_sets;
  auto bit_of = [&run_sets](const Chars& c) -> int {
    for (size_t k = 0; k < run_sets.size(); ++k)
      if (run_sets[k] == c) return static_cast<int>(k);
    if (run_sets.size() == kMaxRunSets) return -1;
    run_sets.push_back(c);
    return static_cast<int>(run_sets.size() - 1);
  };
  // (Written as made: a pattern refused on the way keeps runs_ false, and its tables unread.)
  size_t at = 0;
  for (size_t r = 0; r + 1 < runs.size(); ++r) {
    const int k = bit_of(runs[r].chars);
    if (k < 0) return dfa;
    for (uint32_t i = 0; i < runs[r].min; ++i) dfa.run_want_[at++] = static_cast<uint8_t>(1u << k);
  }
  const Run& last = runs.back();
  const int k = bit_of(last.chars);
  if (k < 0) return dfa;
  for (unsigned b = 0; b < 128; ++b)
    for (size_t s = 0; s < run_sets.size(); ++s)
      if (run_sets[s].Has(b)) dfa.run_member_[b] |= static_cast<uint8_t>(1u << s);
  for (unsigned b = 0; b < 128; ++b)
    if (last.chars.Has(b)) dfa.run_low_[b & 15] |= static_cast<uint8_t>(1u << (b >> 4));
  dfa.run_fixed_ = static_cast<uint8_t>(fixed);
  dfa.run_last_ = static_cast<uint8_t>(1u << k);
  dfa.run_min_ = fixed + last.min;
  dfa.run_max_ = last.max == kMany ? ~uint64_t{0} : fixed + last.max;
  dfa.runs_ = true;
  return dfa;
}

void AsciiDfa::MakePairs(const std::vector<std::vector<int>>& moves, size_t accepting) {
  const size_t states = moves.size();
  const size_t classes = moves[0].size();
  if (states * classes * classes > kMaxPairWork) return;
  // One byte's move, by class then state (flat, for the loops below); an accepting state
  // keeps accepting when a prefix match suffices.
  std::vector<uint8_t> by_class(classes * states);
  for (size_t k = 0; k < classes; ++k)
    for (size_t d = 0; d < states; ++d)
      by_class[k * states + d] =
          static_cast<uint8_t>(!end_anchored_ && d >= accepting ? d : moves[d][k]);
  auto step = [&](size_t d, size_t k) -> size_t { return by_class[k * states + d]; };
  // Each pair of classes: the state every state moves to (a column); pairs with the same
  // column share it. Columns are numbered as first made, kept one after another in
  // `columns`, and found by an open-addressing table of their numbers (a hash of a column's
  // 8-byte words; more than twice as many places as there can be columns).
  const size_t most = std::min(classes * classes, kMaxPairEntries / states);
  size_t places = 16;
  while (places < 2 * most + 2) places *= 2;
  const int shift = 64 - std::countr_zero(places);
  std::vector<int> column_at(places, -1);
  std::vector<uint8_t> columns;  // column c's states at c * states
  size_t count = 0;
  std::vector<uint16_t> pair_column(classes * classes);
  std::vector<uint8_t> column(states + 8, 0);  // (zeros past the states: whole words)
  // The states the first class does not take to the dead one (0), and where it takes
  // them: the others stay dead whatever the second class is (the dead state moves to
  // itself), and most states die on most classes.
  std::vector<std::pair<uint32_t, uint8_t>> live;
  for (size_t a = 0; a < classes; ++a) {
    const uint8_t* const first = &by_class[a * states];
    live.clear();
    for (size_t d = 0; d < states; ++d)
      if (first[d] != 0) live.emplace_back(static_cast<uint32_t>(d), first[d]);
    for (size_t b = 0; b < classes; ++b) {
      const uint8_t* const second = &by_class[b * states];
      std::memset(column.data(), 0, states);
      for (const auto& [d, to] : live) column[d] = second[to];
      uint64_t h = states;
      for (size_t d = 0; d < states; d += 8) {
        uint64_t w;
        std::memcpy(&w, &column[d], 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
      }
      size_t i = static_cast<size_t>((h * 0x9e3779b97f4a7c15ull) >> shift);
      while (column_at[i] >= 0 && std::memcmp(&columns[static_cast<size_t>(column_at[i]) * states],
                                              column.data(), states) != 0)
        i = (i + 1) & (places - 1);
      if (column_at[i] < 0) {
        column_at[i] = static_cast<int>(count++);
        columns.insert(columns.end(), column.begin(), column.begin() + states);
        if (states * (count + classes) > kMaxPairEntries) return;  // too large
      }
      pair_column[a * classes + b] = static_cast<uint16_t>(column_at[i]);
    }
  }
  const size_t row = count + classes;
  pair_next_.resize(states * row);
  for (size_t d = 0; d < states; ++d) {
    for (size_t c = 0; c < count; ++c)
      pair_next_[d * row + c] = static_cast<uint16_t>(columns[c * states + d] * row);
    for (size_t k = 0; k < classes; ++k)
      pair_next_[d * row + count + k] = static_cast<uint16_t>(step(d, k) * row);
  }
  pair_column_ = std::move(pair_column);
  for (unsigned b = 0; b < 256; ++b) pair_hi_[b] = static_cast<uint16_t>(class_[b] * classes);
  pair_columns_ = static_cast<uint16_t>(count);
}

}  // namespace rosetta::codec::schema
