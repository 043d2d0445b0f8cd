#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rosetta/codec/json_schema.h"
#include "schema/ascii_dfa.h"
#include "schema/format_check.h"
#include "schema/regex.h"
#include "text/same_bytes.h"

namespace re2 {
class RE2;
}

namespace rosetta::codec::schema {

inline constexpr uint32_t kNone = ~uint32_t{0};
inline constexpr uint64_t kNoLimit = ~uint64_t{0};

// A member name as Node::FindMember looks it up: its first and last 8 bytes (fewer in a
// shorter name, in loads that stay inside it) as the words a and b, and a hash of them and
// the length in one multiply, whose top bits are the name's place in a table (MemberSlot).
// A lookup waits on the chain from the name's bytes to the table entry's load, so the
// chain is short: a rotate, two xors, a multiply and a shift. A name of at most 16 bytes
// is the whole of its length, a and b (the two words cover every byte; under 4 bytes, a
// holds each), so a member of such a name is found with no load of its bytes; a longer
// one is compared whole.
struct MemberKey {
  uint64_t a, b, hash;
};
[[gnu::always_inline]] inline MemberKey MemberKeyOf(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  } else if (n != 0) {
    a = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) << 8 |
        static_cast<unsigned char>(p[n - 1]) << 16;
  }
  const uint64_t x = (a ^ n) ^ (b << 29 | b >> 35);
  return MemberKey{a, b, x * 0x9e3779b97f4a7c15ull};
}
// The first place tried for a name of hash `hash` in a table of 2^(64 - shift) entries:
// the product's top bits, which every bit of the name's words moves.
inline size_t MemberSlot(uint64_t hash, uint8_t shift) {
  return static_cast<size_t>(hash >> shift);
}

// The bit of Node::member_lengths a name of n bytes sets (names of 63 bytes or more share
// the last).
inline uint64_t LengthBit(size_t n) { return uint64_t{1} << (n < 63 ? n : 63); }

// A name's bit in ObjectPlan::rest_bits: of its length, first byte and last byte, so that
// names of one length mostly differ (a workflow step's "uses" and "name" from its `then`
// branch's "with"). Computed only for a name whose LengthBit is in rest_lengths.
inline uint64_t NameBit(std::string_view s) {
  const size_t n = s.size();
  if (n == 0) return 1;
  const size_t h =
      n * 7 + static_cast<unsigned char>(s[0]) * 3 + static_cast<unsigned char>(s[n - 1]);
  return uint64_t{1} << (h & 63);
}

// JSON Schema's instance types, as bits of Node::types.
enum TypeBit : uint8_t {
  kTypeNull = 1,
  kTypeBoolean = 2,
  kTypeObject = 4,
  kTypeArray = 8,
  kTypeNumber = 16,  // any number
  kTypeString = 32,
  kTypeInteger = 64,  // a number with no fractional part (only in `type`)
};
inline constexpr uint8_t kAllTypes = 0x7f;

// How an evaluation is applied by its in-place parent (Validator's evaluations, ObjectPlan).
enum Role : uint8_t { kAll, kAny, kOne, kNot, kIf, kThen, kElse, kDep };

// A name test (Node::name_tests) is a postfix program of these, each in the top 4 bits of
// a word whose low 28 bits are its argument, over a stack of truth values.
enum NameOp : uint32_t {
  kNameHas,    // push: the watched name of index arg was seen
  kNameConst,  // push arg != 0
  kNameAll,    // pop arg values, push whether all are true
  kNameAny,    // pop arg values, push whether any is true
  kNameOne,    // pop arg values, push whether exactly one is true
  kNameNot,    // pop one, push its negation
  kNameIf,     // pop if, then, else (pushed in that order), push if ? then : else
};
inline constexpr uint32_t NameWord(NameOp op, uint32_t arg) { return op << 28 | arg; }
// The longest name test a branch is given (longer: it is evaluated as any branch is).
inline constexpr size_t kMaxNameTest = 64;

// A name test's verdict: its program run over `seen(w)`, whether the watched name of index
// w is present.
template <class Seen>
bool RunNameTest(const std::vector<uint32_t>& program, Seen&& seen) {
  bool stack[kMaxNameTest + 1];
  size_t top = 0;
  for (const uint32_t word : program) {
    const uint32_t arg = word & 0x0fffffff;
    const NameOp op = static_cast<NameOp>(word >> 28);
    switch (op) {
      case kNameHas:
        stack[top++] = seen(arg);
        break;
      case kNameConst:
        stack[top++] = arg != 0;
        break;
      case kNameAll:
      case kNameAny:
      case kNameOne: {
        uint32_t yes = 0;
        for (uint32_t i = 0; i < arg; ++i) yes += stack[--top];
        stack[top++] = op == kNameAll ? yes == arg : op == kNameAny ? yes != 0 : yes == 1;
        break;
      }
      case kNameNot:
        stack[top - 1] = !stack[top - 1];
        break;
      case kNameIf:
        top -= 3;
        stack[top] = stack[top] ? stack[top + 1] : stack[top + 2];
        ++top;
        break;
    }
  }
  return stack[0];
}

struct Property {
  std::string name;
  uint32_t node;
};
struct PatternProperty {
  uint32_t regex;
  uint32_t node;
};
struct DependentRequired {
  std::string name;
  std::vector<std::string> required;
};
struct DependentSchema {
  std::string name;
  uint32_t node;
};

// A name_judged branch's verdict (Node::name_tests).
struct NameTest {
  // Most tests are "these names are all present" (or not): with every name among the
  // first 64 watched, the verdict is (seen & mask) == mask, != negated.
  bool by_mask = false;
  bool negated = false;
  uint64_t mask = 0;
  std::vector<uint32_t> program;  // otherwise
};

// The keywords of a subschema that few subschemas have, kept apart from its Node (and
// made only when one is present): a Node is what every subschema pays for.
struct NodeRare {
  // (What an object's end reads first, then patternProperties, then the rest.)
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> dependent_required_w;
  std::vector<DependentSchema> dependent_schemas;
  std::vector<PatternProperty> pattern_properties;
  std::vector<uint32_t> dependent_schemas_w;  // the trigger of each dependent_schemas entry
  std::vector<DependentRequired> dependent_required;
  std::string const_value;               // canonical form (canonical.h)
  std::vector<std::string> enum_values;  // canonical forms
  std::string format_name;               // only for a format FormatId knows
  // if / then / else judged in a direct frame (docs/schema.md, "Conditionals by member"):
  // each branch present is name_judged or member-judged: `properties` whose subschemas
  // judge a container by its type alone, `required`, nothing else. Bit p of cond_parts
  // (0 if, 1 then, 2 else): that branch is member-judged, passing when no member failed
  // its property subschema (EvalRecord::cond) and the watched names of cond_required[p]
  // are all present.
  bool cond_direct = false;
  uint8_t cond_parts = 0;
  uint64_t cond_required[3] = {};
  // In the member table of a cond_direct node, a member a member-judged branch has a
  // subschema for gets a copy of its own subschema (Node::kCondMember) that holds
  // cond_base, that subschema (or its Node::kCondCount copy, whose cond_base is the
  // subschema and cond_checks the same), and cond_checks: each branch's bit and its
  // subschema for the member.
  uint32_t cond_base = ~uint32_t{0};
  std::vector<std::pair<uint8_t, uint32_t>> cond_checks;
  // Of such a copy, bit t (0: null, 1: boolean) when cond_base's inline check passes every
  // value of that type and each of cond_checks gives its verdict on it by the type alone
  // (Validator::CondChild's: a type the branch's subschema excludes fails it, one its
  // inline check lets through passes it); cond_type_fails[t]: the branch bits it fails.
  uint8_t cond_by_type = 0;
  uint8_t cond_type_fails[2] = {};
  // A union whose one branch alone takes an array (Compiler::ArrayLeaf): an array due to
  // the union alone opens that branch's direct frame (Validator::OpenLeafOfUnion).
  uint32_t array_leaf = ~uint32_t{0};
  // A container of the member is evaluated by each branch's subschema beside its own
  // (one of them judges more than its type and counts): Validator::CondContainer.
  bool cond_deep = false;
  // With cond_deep, a map of the member opens this node's direct frame instead
  // (Compiler::NestedHost: Node::kCondNested), kNone: the ordinary frame.
  uint32_t cond_nested = ~uint32_t{0};
};
inline const NodeRare kNoRare{};
// A Node's NodeRare: a unique_ptr that a copy of the node copies (Compiler's cond
// members are copies of a node).
struct RarePtr : std::unique_ptr<NodeRare> {
  RarePtr() = default;
  RarePtr(RarePtr&&) = default;
  RarePtr& operator=(RarePtr&&) = default;
  RarePtr(const RarePtr& o) : std::unique_ptr<NodeRare>(o ? new NodeRare(*o) : nullptr) {}
  RarePtr& operator=(const RarePtr& o) {
    reset(o ? new NodeRare(*o) : nullptr);
    return *this;
  }
  RarePtr& operator=(std::unique_ptr<NodeRare>&& p) {
    std::unique_ptr<NodeRare>::operator=(std::move(p));
    return *this;
  }
};

// One compiled subschema. Keywords absent from it keep their defaults (no constraint);
// the evaluator checks only what `has` says is present. 512 bytes, cache-line aligned: a
// node's place in Compiled::nodes is its index shifted (at 504 bytes, the index took three
// instructions more to scale, and workflow's 1,000 records 1.6M more; it is checked below).
struct alignas(64) Node {
  enum Has : uint32_t {
    kType = 1u << 0,
    kMinimum = 1u << 1,
    kMaximum = 1u << 2,
    kExclusiveMinimum = 1u << 3,
    kExclusiveMaximum = 1u << 4,
    kMultipleOf = 1u << 5,
    kConst = 1u << 6,
    kEnum = 1u << 7,
    kUniqueItems = 1u << 8,
    kContains = 1u << 9,
    kFormat = 1u << 10,
    kContent = 1u << 11,
    // A copy of a member's subschema made for a cond_direct node (NodeRare::cond_base):
    // its scalars and containers are judged by Validator::CondChild / CondContainer.
    kCondMember = 1u << 12,
    // A cond_direct node (NodeRare) whose every branch is member-judged, with no
    // dependentRequired and its required names among the first 64 watched: a direct
    // frame's end passes by its counts, names and branch verdicts alone when they pass
    // (Validator::PassesCondEnd).
    kCondNode = 1u << 13,
    // A copy of a member's subschema (NodeRare::cond_base) that a Node::kCondMember copy
    // opens its container's frame with when a member-judged branch counts the member's
    // items or members: that frame's end judges them (Validator::CondCount).
    kCondCount = 1u << 14,
    // A cond_direct node, not a kCondNode, with an end table (Node::end_table): a direct
    // frame's end passes by the table when its member-judged branches all pass
    // (Validator::PassesCondTable), since the table takes every branch it does not judge
    // by names as passing.
    kCondTable = 1u << 15,
    // A member's subschema copied for a conditional's branches that look into its map
    // (NodeRare::cond_nested): its end hands its branch bits to its parent's evaluation.
    kCondNested = 1u << 16,
    kNumeric = kMinimum | kMaximum | kExclusiveMinimum | kExclusiveMaximum | kMultipleOf,
  };
  // true / false schemas (and `{}`): kTrue accepts everything with no keyword work.
  enum Kind : uint8_t { kSchema, kTrue, kFalse };

  Kind kind = kSchema;
  Draft draft = Draft::k2020;
  // On an object, this subschema's verdict follows from which names are present alone
  // (`{"required": ["uses"]}`, `{"not": {"required": ["with"]}}`: required,
  // dependentRequired and a type, under the in-place applicators). As a branch (anyOf,
  // oneOf, not, if, then, else) it is then judged from the names its parent watched, with
  // no evaluation of its own.
  bool name_judged = false;
  bool has_end_table = false;  // (end_table)
  uint32_t has = 0;
  uint8_t types = kAllTypes;
  // The types a scalar_plain node's inline check lets through: types, strings alone when
  // texts_only (no number, boolean or null is one of its texts), null or boolean alone for
  // a scalar union that passes each of them whatever its value (Compiler::UnionPlain).
  uint8_t plain_types = kAllTypes;
  bool integer_multiple = false;  // multipleOf is an integer: exact for integer instances
  // Some node reached in place from this one (allOf, $ref, ...) has unevaluatedProperties
  // or unevaluatedItems: evaluations under it track which members were evaluated.
  bool tracks_evaluated = false;
  bool has_in_place = false;  // any in-place applicator: allOf .. else, $ref, dependentSchemas
  // A scalar is judged here by type, bounds, length, pattern, format and texts alone (no
  // in-place applicator or content, multipleOf only an integer one; const or enum only as
  // texts): Validator
  // tries a scalar against it inline first, and only a failure goes the whole way (for its
  // message). Also a scalar_union for the types it surely passes (plain_types).
  bool scalar_plain = false;
  // A map / an array due to this node alone is read directly
  // (Validator's direct frames): its member or item's subschema is looked up and applied
  // with no slot, and a container child opens its own frame from it. So: true, or a
  // schema with nothing in place, no tracking, no const or enum, and for a map no
  // patternProperties but a one_pattern one (a member has at most one subschema), for an
  // array no contains;
  // never in a set with dynamic scopes. A direct array frame of a node with uniqueItems
  // captures its items, as a direct frame inside a captured value does
  // (Validator::OpenDirect).
  bool direct_map = false;
  bool direct_array = false;
  bool captures_items = false;  // direct_array with uniqueItems
  // A direct_array whose type lets an array through, that captures nothing, and whose end
  // a quick_end check settles when its counts pass: its frame opens with no evaluation
  // (Validator's Frame::kLeaf) and needs one only when its end fails the inline checks
  // (GeoJSON positions, twitter's indices, citm's prices).
  bool leaf_array : 1 = false;
  // The same for a map: a direct_map schema whose type lets an object through, and whose
  // end has no work or a quick_end: its frame opens with no evaluation (Validator's
  // Frame::kLeafMap) and needs one only when a name is not one its table or its plain
  // checks pass at once, or its end fails (citm's areas, prices and seat categories,
  // twitter's entities, package's dependencies).
  bool leaf_map : 1 = false;  // (Three bits of one byte, with short_map.)
  // A leaf_map whose map a reader may offer whole (Validator::MayTakeMembers): at most
  // kMaxTakenMembers required names, each a member whose subschema may take a short value
  // (a plain check that lets some scalar through, or a direct container that may be
  // empty). Others would be read in vain: twitter's users, with 24 required members and
  // maps among them.
  bool short_map : 1 = false;
  // One patternProperties entry, which matches the name of no property: a member's
  // subschema is its property's, else the pattern's when it matches, else
  // additionalProperties'.
  bool one_pattern = false;
  // A member name here finds at most one subschema and leaves no record: no
  // unevaluatedProperties, and no patternProperties but a one_pattern one (so a map's
  // first evaluation of this node may read its lone members as a direct frame does:
  // Validator::Lone).
  bool lone_keys = false;
  // A direct frame of this node that ends may be passed by its type, its counts and
  // required_mask alone (no dependentRequired; every required name among the first 64
  // watched): Finalize runs only when those fail, for the messages.
  bool quick_end = false;
  bool has_object_work = false;
  bool has_array_work = false;
  // What a member name does here (KeyWork bits; 0: nothing, the name is not looked at).
  enum KeyWork : uint8_t {
    kKeyMembers = 1,     // properties or a watched name: member_table
    kKeyPatterns = 2,    // patternProperties
    kKeyAdditional = 4,  // additionalProperties
    kKeyUneval = 8,      // unevaluatedProperties
    kKeyNames = 16,      // propertyNames
  };
  uint8_t key_work = 0;
  // Whether an object / an array that ends here has anything left to check at its end
  // (type, const, enum, counts, required, dependencies, contains, uniqueItems, the
  // verdicts of anyOf, oneOf, not, if); an evaluation that tracks evaluated members
  // always has.
  bool end_object_work = false;
  bool end_array_work = false;
  // Whether some member has a bit (Member::bit).
  bool member_bits = false;
  uint8_t member_shift = 63;     // 64 - log2 of member_table's size (MemberSlot)
  uint8_t format = 0;            // FormatId, asserted only with format_assertion
  bool format_asserted = false;  // its metaschema has the format-assertion vocabulary
  // Draft 7's contentEncoding "base64" and contentMediaType "application/json" (later drafts
  // make them annotations).
  bool content_base64 = false;
  bool content_json = false;
  // texts_only: the node's const or enum (not both) has strings alone, listed in texts as
  // they are (not canonical), for the inline check of a scalar_plain node. No container is
  // one of them: a container is not captured for them (CapturesFor), and fails them at
  // its end with no look (Validator::Finalize).
  bool texts_only = false;
  // A scalar union: anyOf or oneOf and no other keyword a scalar is judged by (no type,
  // bounds, const, enum, format, allOf, not, if or reference): the nullable `{"anyOf":
  // [{"type": "null"}, {"$ref": ...}]}`, a `oneOf` of a string or an array. Validator's
  // UnionVerdict judges a scalar by its branches' inline checks, with no evaluation.
  bool scalar_union = false;
  // The place of the first property declared (Member::kNoPlace: none).
  uint16_t first_member = 0xffff;  // (Member::kNoPlace, declared below)
  uint32_t pattern = kNone;        // Compiled::regexes
  uint32_t items = kNone;          // every item after the prefix
  // A decimal within [sure_low, sure_high] by Validator::TakeDecimal's approximate
  // compare passes minimum, maximum, exclusiveMinimum and exclusiveMaximum for certain:
  // each bound moved inwards by a relative 2^-48, then to a float (rounded inwards). The
  // proof is at SureBounds (compiler.cc); a number outside the range is converted exactly
  // (Double). Empty for a node with multipleOf.
  float sure_low = -std::numeric_limits<float>::infinity();
  float sure_high = std::numeric_limits<float>::infinity();
  uint32_t contains = kNone;  // (here, in what was padding: the floats add no bytes)
  // LengthBit of every name in member_table: a name of another length is no member, with
  // no hash and no probe (a branch's table often holds one or two names).
  uint64_t member_lengths = 0;
  uint64_t min_length = 0, max_length = kNoLimit;
  // (The first 64 bytes: what a scalar's inline check, a member name's lookup, an item's
  // subschema and a branch's viability read first. The next 128: the member table, the
  // prefix, the bounds a number or a container's end is checked against, and NodeRare.)

  // properties and watched names in one open-addressing table (MemberKey): a member name
  // is looked up once per Eval, whatever the number of properties. 32 bytes an entry.
  struct Member {
    uint64_t a = 0, b = 0;   // the name's MemberKey words
    uint32_t size = kEmpty;  // the name's length; kEmpty: no member in this place
    uint32_t property;       // its subschema, kNone when it has none
    uint32_t watch;          // its index in watched, kNone when unwatched
    // Its bit in a map's record of the member names it has had (Validator::ClaimKey), or
    // kNoBit: past the first 64 members, or a name that looks like an integer (the reader
    // compares "12" with an integer key 12, so it keeps its own check of such names).
    uint8_t bit;
    // Validator::DirectKey's common case takes this member: it has a subschema, it is
    // watched among the first 64 names or not at all, and its node has no work for a name
    // but members and additionalProperties (key_work). (In what was padding, a bit.)
    bool direct : 1 = false;
    // Validator::LoneMember takes this member of a kEach map's first evaluation when no
    // other evaluation may have work for it: it has a subschema, no patternProperties
    // entry of its node matches it, and its node has no propertyNames (so that
    // subschema is all the first evaluation applies to its value; additionalProperties
    // and unevaluatedProperties leave a property alone). Set at load (Compiler::SoleMembers).
    bool sole : 1 = false;
    // The place of the property declared after this one (`properties` in document order),
    // kNoPlace for the last, for a watched name that is no property, and in a table past
    // 65,535 places: the name a direct frame expects next (FindMemberFrom).
    uint16_t next = kNoPlace;
    static constexpr uint8_t kNoBit = 0xff;
    static constexpr uint32_t kEmpty = ~uint32_t{0};
    static constexpr uint16_t kNoPlace = 0xffff;
  };
  static_assert(sizeof(Member) == 32, "a member table entry is 32 bytes");
  std::vector<Member> member_table;    // a power of two in size
  std::vector<uint32_t> prefix_items;  // prefixItems, or items as an array (drafts < 2020-12)
  double minimum = 0, maximum = 0;

  uint64_t min_items = 0;
  // The most items a quick_end array passes with: max_items, at most 1 with uniqueItems
  // (more: Finalize compares them).
  uint64_t quick_max_items = kNoLimit;
  uint64_t min_properties = 0, max_properties = kNoLimit;
  // The bits of the required names when each is among the first 64 watched (all present:
  // (seen & required_mask) == required_mask); 0 when one is not.
  uint64_t required_mask = 0;
  // The verdict at an object's end of what Finalize checks there by names (required,
  // dependentRequired, the name_judged branches, and how anyOf, oneOf, not and if / then /
  // else combine them with the branches it made), for each set of the first
  // kEndTableNames watched names present: bit `seen` (Eval::seen), given that every
  // branch made is a leaf that passed. Validator::PassesTable reads it. Only for a node
  // with no more watched names than that, and no const, enum, tracking or dynamic
  // reference (has_end_table).
  static constexpr size_t kEndTableNames = 6;
  uint64_t end_table = 0;
  // format_name, const, enum, dependentRequired, dependentSchemas and patternProperties
  // (kNoRare: none).
  RarePtr rare_;
  uint64_t max_items = kNoLimit;

  double exclusive_minimum = 0, exclusive_maximum = 0;
  double multiple_of = 0;
  // The name_judged branches of this node, in the order anyOf, oneOf, not, if, then, else:
  // each one's verdict as a NameOp program over this node's watched names. (In the node:
  // kept in NodeRare, workflow's paired warm time was 1.2-1.4% more.)
  using NameTest = schema::NameTest;
  std::vector<NameTest> name_tests;
  // Beside each entry of member_table: its name, read only to compare a name past 16 bytes
  // (a view of watched, or of Compiled::long_names).
  std::vector<std::string_view> member_names;
  // Whether a name of `key`'s length can be a member (MightBeMember), then which (k:
  // MemberKeyOf(key)).
  bool MightBeMember(std::string_view key) const {
    return (member_lengths & LengthBit(key.size())) != 0;
  }
  // FindMember, trying the place `at` first (Member::kNoPlace: none). Payloads mostly list
  // an object's members in the order its schema declares them (both made from one
  // definition), so a direct frame expects the property after the last one it found
  // (Member::next): when that is the name, it is found with no hash, and the entry's load,
  // whose place does not wait on the name's bytes, is made while they are read.
  [[gnu::always_inline]] const Member* FindMemberFrom(uint16_t at, std::string_view key,
                                                      const MemberKey& k) const {
    if (at != Member::kNoPlace && IsAt(at, key, k)) return &member_table[at];
    return FindMember(key, k);
  }
  // Whether the member in place i (not empty) is the name: its length and words, and past
  // 16 bytes its whole text.
  [[gnu::always_inline]] bool IsAt(size_t i, std::string_view key, const MemberKey& k) const {
    const Member& member = member_table[i];
    return member.a == k.a && member.b == k.b && member.size == key.size() &&
           (key.size() <= 16 || SameBytes(member_names[i], key));
  }
  // (Always inlined: GCC left it out of line once the validator grew, and twitter's 1,000
  // records took 2.4M more instructions to validate.)
  [[gnu::always_inline]] const Member* FindMember(std::string_view key, const MemberKey& k) const {
    const Member* table = member_table.data();
    const size_t mask = member_table.size() - 1;
    for (size_t i = MemberSlot(k.hash, member_shift);; i = (i + 1) & mask) {
      if (table[i].size == Member::kEmpty) return nullptr;
      if (IsAt(i, key, k)) return &table[i];
    }
  }

  uint64_t min_contains = 1, max_contains = kNoLimit;
  uint32_t unevaluated_items = kNone;

  uint32_t additional_properties = kNone;
  uint32_t property_names = kNone;
  uint32_t unevaluated_properties = kNone;
  // Member names whose presence matters (required, dependentRequired, dependentSchemas),
  // sorted; the keywords refer to them by index.
  std::vector<std::string> watched;
  std::vector<uint32_t> required_w;  // `required`, as indexes in watched

  std::vector<uint32_t> all_of, any_of, one_of;
  uint32_t not_ = kNone, if_ = kNone, then_ = kNone, else_ = kNone;
  uint32_t ref = kNone;
  // $dynamicRef (2020-12) / $recursiveRef (2019-09): the statically resolved target, and
  // the anchor name looked up in the dynamic scope when that target is dynamic
  // (kRecursiveAnchor: $recursiveAnchor).
  uint32_t dynamic_ref = kNone;
  uint32_t dynamic_name = kNone;  // Compiled::anchor_names

  std::vector<std::string> texts;  // (texts_only)

  uint32_t resource = 0;  // the schema resource this node is in (Compiled::resources)
  // Its ObjectPlan (Compiled::plans) when it is applied to an object by a parent whose
  // evaluation is not committed / is committed; kNone: none (evaluations made one by one).
  uint32_t object_plan[2] = {kNone, kNone};

  uint32_t document = 0;
  // JSON Pointer of this subschema in its document: Compiled::locations from location_at,
  // location_size bytes (Compiled::Location).
  uint32_t location_at = 0, location_size = 0;

  const NodeRare& rare() const { return rare_ ? *rare_ : kNoRare; }
  NodeRare& rare_mut() {
    if (!rare_) rare_ = std::make_unique<NodeRare>();
    return *rare_;
  }
};
// Whether a container an evaluation of n applies to is captured for n's sake: uniqueItems,
// or a const or enum that a container may be (workflow's `on`, whose oneOf branch of event
// names as strings takes no object or array, is not captured).
inline bool CapturesFor(const Node& n) {
  return (n.has & Node::kUniqueItems) || ((n.has & (Node::kConst | Node::kEnum)) && !n.texts_only);
}
// A union with nothing else to judge on a map: a type that takes one, no object keyword or
// name test, nothing in place but anyOf or oneOf, no record of evaluated members (what
// Compiler::Union asks of a choice's union).
inline bool PlainUnion(const Node& u) {
  return u.kind == Node::kSchema && (u.has & ~uint32_t{Node::kType}) == 0 &&
         (u.types & kTypeObject) && u.name_tests.empty() && !u.has_object_work &&
         !u.tracks_evaluated && u.all_of.empty() && u.not_ == kNone && u.if_ == kNone &&
         u.ref == kNone && u.dynamic_ref == kNone && u.rare().dependent_schemas.empty() &&
         u.any_of.empty() != u.one_of.empty();
}
static_assert(sizeof(Node) == 512,
              "a Node's fields outgrew 512 bytes: a rare one belongs in NodeRare");

// How an evaluation's verdict reaches the evaluation that applied its frame's container.
// kCond + p: a failure sets bit p of the owner's EvalRecord::cond (the subschema branch p
// of a NodeRare::cond_direct node has for a member: Validator::CondContainer).
enum SlotKind : uint8_t { kMust, kContains, kUneval, kCond };

// The validator's record of one evaluation (Validator::Eval): one subschema applied to one
// value. Its first 32 bytes are what a plan holds (ObjectPlan): the rest starts the same
// for every evaluation.
struct EvalHead {
  uint32_t node;
  uint32_t parent;       // the in-place parent in evals_, kNone for a frame's root
  uint32_t subtree_end;  // one past its in-place subtree in evals_
  uint32_t role_index;
  Role role;
  SlotKind owner_kind;
  bool valid;
  bool committed;  // a failure here is a violation of the whole payload
  bool tracks;     // records which children it evaluated (an unevaluated* keyword needs it)
  // Finalize has work here when the container ends: in-place children to settle, a
  // keyword checked at the end, or evaluated children to record. A leaf with none is
  // passed over.
  bool ends;
  // Its node's end table does not hold here (Validator::PassesTable): a UnionChoice's plan
  // made none of the node's branches, where the table counts those it makes.
  bool no_table;
  uint32_t owner;  // a root's: the Eval of the parent container, kNone at the top
  uint32_t scope;
};
static_assert(sizeof(EvalHead) == 32);
// 64 bytes (56 of fields), so that an index is a shift, not a multiply by 56.
struct alignas(64) EvalRecord : EvalHead {
  uint32_t extra;  // extras_ index, kNone when it tracks nothing
  // A direct frame's evaluation of a NodeRare::cond_direct node: bit p, a member failed
  // the subschema branch p (0 if, 1 then, 2 else) has for it. (In what was padding.)
  uint8_t cond;
  uint64_t contains;
  uint64_t seen;  // watched names present (first 64)
};
static_assert(sizeof(EvalRecord) == 64);

// The evaluations one subschema expands to on an object (itself and what it applies in
// place, in the order Validator::CreateEval makes them), known at load when no dynamic
// scope can change them: a map whose only subschema has one gets them copied in one pass
// instead of made one by one (Validator::MakePlanned).
struct ObjectPlan {
  // The first 32 bytes of the validator's records, with `parent` and `subtree_end` counted
  // from the first (parent kNone for the root), `owner` kNone and `owner_kind` kMust: a
  // copy takes the frame's first index added to both and the root's owner. (A valid false
  // is a false schema, or a branch whose type cannot take an object.)
  std::vector<EvalHead> evals;   // at most kMaxEntries
  bool committed_false = false;  // an evaluation is committed and its schema false
  // When every entry past the first has no name work but its member table
  // (Node::key_work 0 or kKeyMembers): the LengthBit and the NameBit of every name in
  // their tables, so a name with another length or another NameBit is looked at by the
  // first entry alone. All ones otherwise, and rest_bits all ones too when the first
  // entry's own names of those lengths have NameBits among them (the name is then not
  // worth its NameBit: Validator::RestMay).
  uint64_t rest_lengths = ~uint64_t{0};
  uint64_t rest_bits = ~uint64_t{0};
  static constexpr size_t kMaxEntries = 64;
  bool capture = false;  // an entry captures the map (CapturesFor)
  // The node's UnionChoice (Compiled::choices), kNone when it has none: its maps open
  // with no evaluation (Validator's Frame::kChoose). (Here, read where a map's plan is.)
  uint32_t choice = kNone;
  // Where the plan has the one leaf a direct frame reads alone under a union (or unions,
  // one the only branch made of the other), 0 when it has none (Compiler::DirectLeaf):
  // the map is read as that leaf's direct frame (Validator::MakeChoice, OnBeginRest).
  uint32_t direct_leaf = 0;
};

// A few strings, each with the leaves it leaves live and their plans (UnionChoice), found
// by a hash of the length and the first and last bytes in an open-addressing table of at
// least twice their number: one compare, mostly.
struct ChoiceTable {
  struct Entry {
    std::string text;
    uint64_t live = 0;
    std::array<uint32_t, 2> plans = {kNone, kNone};  // (UnionChoice::plans)
  };
  std::vector<Entry> entries;
  std::vector<uint16_t> slots;  // entry index + 1; 0: empty
  static size_t Hash(std::string_view s) {
    return s.empty() ? 0
                     : (s.size() << 4) + static_cast<unsigned char>(s[0]) * 3u +
                           static_cast<unsigned char>(s.back());
  }
  void Build() {
    size_t size = 4;
    while (size < entries.size() * 2) size *= 2;
    slots.assign(size, 0);
    for (size_t i = 0; i < entries.size(); ++i) {
      size_t at = Hash(entries[i].text) & (size - 1);
      while (slots[at] != 0) at = (at + 1) & (size - 1);
      slots[at] = static_cast<uint16_t>(i + 1);
    }
  }
  const Entry* Find(std::string_view s) const {
    const size_t mask = slots.size() - 1;
    for (size_t at = Hash(s) & mask;; at = (at + 1) & mask) {
      const uint16_t i = slots[at];
      if (i == 0) return nullptr;
      if (SameBytes(entries[i - 1].text, s)) return &entries[i - 1];
    }
  }
};

// What a map's first member tells of a union's branches: for a node whose only work is
// one oneOf or anyOf (through branches that are such unions too, down to the other
// branches, its leaves; at most 64), the leaves that can still pass.
// - A closed leaf ("additionalProperties": false, no patternProperties) fails on a name
//   outside its properties.
// - A leaf that requires `value_name` and gives it a const or enum of strings alone
//   fails when that member's value is another string.
// A map due to such a node alone opens with no evaluation (Validator's Frame::kChoose)
// and makes them at its first name (or that name's value, for value_name): the plan of
// the leaves still live, whose union branches with no live leaf are not made. A branch not
// made counts as failed, which these branches are, so the verdicts and the violations are
// the ordinary way's, with fewer evaluations (GeoJSON's Feature | FeatureCollection |
// Geometry, and Geometry's seven types, by "type"; citm's event | performance by name).
struct UnionChoice {
  uint64_t all = 0;     // every leaf
  uint64_t closed = 0;  // the closed leaves
  // Each name a closed leaf has as a property: the leaves it leaves live (the open ones
  // and the closed ones that have it); any other name: `other`.
  ChoiceTable names;
  ChoiceTable::Entry other;
  std::string value_name;  // empty when no leaf is told by a value
  uint64_t valued = 0;     // the leaves told by value_name's value
  // Each string one of them takes: the leaves value_name and that value leave live; any
  // other string: `other_value`; no string: `no_string` (value_name's leaves).
  ChoiceTable values;
  ChoiceTable::Entry other_value, no_string;
  // (Each entry's plans: the ObjectPlan (Compiled::plans) of its live leaves when its
  // map's parent evaluation is not committed / is committed; kNone for `all`, which is
  // the node's own object_plan.)

  const ChoiceTable::Entry& ForName(std::string_view name) const {
    const ChoiceTable::Entry* e = names.Find(name);
    return e != nullptr ? *e : other;
  }
  const ChoiceTable::Entry& ForValue(std::string_view value) const {
    const ChoiceTable::Entry* e = values.Find(value);
    return e != nullptr ? *e : other_value;
  }
};

struct Resource {
  std::string uri;
  uint32_t root = kNone;  // node, compiled on demand
  bool recursive_anchor = false;
  // $dynamicAnchor names (Compiled::anchor_names) -> node
  std::vector<std::pair<uint32_t, uint32_t>> dynamic_anchors;
};

inline constexpr uint32_t kRecursiveAnchor = kNone - 1;

// Everything one JsonSchemaSet holds: the nodes of every loaded document, their regular
// expressions and the names requests use.
struct Compiled;

// What a request names: one loaded document's root.
class LoadedSchema final : public JsonSchema {
 public:
  LoadedSchema(const Compiled* set, uint32_t root, std::string name)
      : set_(set), root_(root), name_(std::move(name)) {}
  ~LoadedSchema() override = default;
  bool Run(Context& ctx, const TranscodeRequest& request, OutputBuffer* out) const override;
  const std::string& name() const override { return name_; }
  const Compiled& set() const { return *set_; }
  uint32_t root() const { return root_; }
  void set_root(uint32_t root) { root_ = root; }
  uint32_t document() const { return document_; }
  void set_document(uint32_t d) { document_ = d; }

 private:
  const Compiled* set_;
  uint32_t root_;
  uint32_t document_ = 0;  // keyword locations in other documents name theirs
  std::string name_;
};

struct Compiled {
  std::vector<Node> nodes;
  std::vector<std::unique_ptr<re2::RE2>> regexes;  // null where dfas has the automaton
  std::vector<std::string> regex_sources;
  // Beside each regex: its byte automaton when it has one (AsciiDfa), which searches in
  // its place. (Inlined: AsciiDfa::Search is the call.)
  std::vector<std::optional<AsciiDfa>> dfas;
  [[gnu::always_inline]] bool Search(uint32_t regex, std::string_view text) const {
    const std::optional<AsciiDfa>& dfa = dfas[regex];
    if (dfa) return !dfa->RulesOut(text) && dfa->Search(text);
    return RegexSearch(*regexes[regex], text);
  }
  std::vector<Resource> resources;
  std::vector<ObjectPlan> plans;
  std::vector<UnionChoice> choices;
  std::vector<std::string> anchor_names;
  std::vector<std::string> documents;  // file (or URI) of each document, for locations
  std::string locations;               // every node's location, one after another
  // The names of properties past 16 bytes that are not watched (Node::member_names).
  std::deque<std::string> long_names;
  std::string_view Location(const Node& n) const {
    return std::string_view(locations).substr(n.location_at, n.location_size);
  }
  std::vector<std::unique_ptr<LoadedSchema>> schemas;
  std::unordered_map<std::string, const JsonSchema*> by_name;
  bool uses_dynamic_scope = false;
  uint64_t bytes = 0;

  ~Compiled();
  LoadedSchema* NewSchema(uint32_t root, std::string name) {
    schemas.push_back(std::make_unique<LoadedSchema>(this, root, std::move(name)));
    return schemas.back().get();
  }
};

}  // namespace rosetta::codec::schema
