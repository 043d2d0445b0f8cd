#pragma once

#include <cstdint>
#include <forward_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/context.h"
#include "core/key_set.h"
#include "json/json_writer.h"
#include "memory/pod_stack.h"
#include "rosetta/codec/output.h"
#include "rosetta/codec/sink.h"
#include "schema/compiled.h"

namespace rosetta::codec::schema {

// Whether a number passes a node's minimum, maximum, exclusiveMinimum, exclusiveMaximum.
template <class T>
[[gnu::always_inline]] inline bool WithinBounds(const Node& n, T x) {
  return !((n.has & Node::kMinimum) && x < n.minimum) &&
         !((n.has & Node::kMaximum) && x > n.maximum) &&
         !((n.has & Node::kExclusiveMinimum) && x <= n.exclusive_minimum) &&
         !((n.has & Node::kExclusiveMaximum) && x >= n.exclusive_maximum);
}

// Whether the integer (negative ? -u : u) passes a node's inline check (Validator::Uint,
// TakeDecimals): a plain one that lets an integer through and whose bounds it is within
// (ids, counts, indices). Past 2^53 (twitter's ids), its double is within a relative
// 2^-53 of it, and the sure range (Node::sure_low, as TakeDecimal) settles it.
[[gnu::always_inline]] inline bool IntegerPasses(const Node& n, uint64_t u, bool negative) {
  constexpr uint64_t kExact = uint64_t{1} << 53;  // (as PassesPlain: exact in double)
  if (!n.scalar_plain || !(n.plain_types & (kTypeNumber | kTypeInteger))) return false;
  if (!(n.has & Node::kNumeric)) return true;
  // (An integer multipleOf, below 2^53: exact as an integer.)
  if ((n.has & Node::kMultipleOf) && u % static_cast<uint64_t>(n.multiple_of) != 0) return false;
  const double m = static_cast<double>(u);
  const double d = negative ? -m : m;
  return u <= kExact ? WithinBounds(n, d) : d >= n.sure_low && d <= n.sure_high;
}

// JSON Schema validation as a sink (docs/schema.md): the reader's events are checked as
// they arrive, with no tree of the payload. Per open container, one Eval per subschema
// applied to it (those a parent applies, and those they apply in place: allOf, anyOf,
// $ref, ...); branches (anyOf, oneOf, not, if, dependentSchemas) run side by side and are
// settled when the container ends. Scalars are judged at once. Only const, enum and
// uniqueItems on a container capture it, in a compact canonical form charged to the
// budget.
class Validator {
 public:
  Validator(Context& ctx, const Compiled& set, uint32_t root, uint32_t document,
            std::vector<Status>* violations, uint32_t max_violations);
  ~Validator();

  void ItemStart(uint64_t offset) {
    if (offset_hold_ == 0) {
      item_offset_ = offset;
      offset_hold_ = kHeld;
    }
  }
  bool Null();
  bool Undefined() { return Null(); }
  bool Simple(uint8_t) { return Null(); }
  bool Bool(bool b);
  bool Uint(uint64_t u);
  bool NegInt(uint64_t n);
  bool Double(double d);
  // The JSON reader's decimal (digits '.' digits, 19 digits at most) before its conversion
  // to a double: the number is (negative ? -1 : 1) * digits / 10^fraction_digits. True when
  // it is settled here (*ok: the event's result): the value of a direct frame with no
  // subschema for it, or whose subschema is a plain one that lets any number through and
  // whose bounds an approximation settles. False, with nothing changed: the reader converts
  // it exactly and calls Double, after ItemStart (none comes before this: a decimal settled
  // here keeps no offset). (Converting 17 significant digits exactly, as canada.json's
  // coordinates have, takes simdjson's Eisel-Lemire step: a 128-bit product and its
  // checks.) Inlined into the reader: as a call the geojson data set took 2.4M more
  // instructions, 2.3%.
  [[gnu::always_inline]] bool TakeDecimal(uint64_t digits, size_t fraction_digits, bool negative,
                                          bool* ok) {
    if (unusual_) return false;
    const bool passed = PassDirect(
        [&](const Node& n) { return DecimalPasses(n, digits, fraction_digits, negative); });
    if (passed) *ok = extra_bytes_ == extra_accounted_ || AccountExtras();
    return passed;
  }
  bool Text(std::string_view s);
  bool Bytes(std::string_view s);
  bool BeginArray(uint64_t) { return special_ ? SpecialBegin(false) : OnBegin(false); }
  bool BeginMap(uint64_t) { return special_ ? SpecialBegin(true) : OnBegin(true); }
  bool EndArray() { return special_ ? SpecialEnd(false) : OnEnd(); }
  bool EndMap() { return special_ ? SpecialEnd(true) : OnEnd(); }
  // An empty array or map (sink.h, TakesEmpty): with no frame when its one subschema,
  // applied as a direct frame would apply it, passes it as it is; else as its Begin and End.
  [[gnu::noinline]] bool Empty(bool is_map);
  // A short array of binary doubles as one event (TakesDoubles,
  // codec/include/rosetta/codec/sink.h): taken when it is the child of a direct frame, a
  // lone member or a leaf, its subschema a leaf array whose count bounds the array's count
  // passes and every item is finite and passes its subschema's inline check (the sure
  // range of its bounds): as the leaf frame opened and closed would have taken it, with no
  // frame. Declined (false, nothing changed) otherwise: its events come one by one.
  [[gnu::noinline]] bool TakeDoubles(const double* v, size_t n, bool* ok);
  // The same for the JSON reader's short numbers (TakesDecimals, sink.h): a decimal item
  // by TakeDecimal's check (DecimalPasses), an integer by Uint's (IntegerPasses).
  // Inlined into the reader's offer (JsonReader::OfferNumbers, out of line itself): as a
  // call, geojson took 2.6M more instructions (4.5%).
  [[gnu::always_inline]] bool TakeDecimals(const ShortDecimal* v, size_t n, bool* ok) {
    if (unusual_) return false;
    const uint32_t c = DirectChild();
    if (c == kNone) return false;
    const Node& a = nodes_[c];
    if (!a.leaf_array || n < a.min_items || n > a.quick_max_items) return false;
    // (ItemNode's, the prefix's size read once.)
    const uint32_t* const prefix = a.prefix_items.data();
    const size_t prefixed = a.prefix_items.size();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t ic = i < prefixed ? prefix[i] : a.items;
      if (ic == kNone) continue;
      const Node& item = nodes_[ic];
      const ShortDecimal& d = v[i];
      if (!(d.fraction_digits == 0 ? IntegerPasses(item, d.digits, d.negative)
                                   : DecimalPasses(item, d.digits, d.fraction_digits, d.negative)))
        return false;
    }
    offset_hold_ &= kReplaying;
    *ok = ChildDone();
    return true;
  }
  // Whether the next value, an array, would have its subschema's items judged by
  // TakeDecimals: its subschema a leaf array (TakeDecimals' first checks).
  [[gnu::always_inline]] bool MayTakeDecimals() const {
    if (unusual_) return false;
    const uint32_t c = DirectChild();
    return c != kNone && nodes_[c].leaf_array;
  }
  // A short map as one event (TakesMembers, sink.h): taken when it is the child of a
  // direct frame, a lone member or a leaf, its subschema a Node::leaf_map, each name one
  // LeafKeyFind would take (a member with a subschema, or a name NonMemberChild gives one),
  // no name given twice (member bits, and NameTable for the names with none), each value
  // passing its subschema by the inline check its event would have (an empty container
  // by PassesEmpty), and the end passing as OnEnd's leaf check: as the leaf frame opened
  // and closed would have taken it, with no frame. Declined (false, nothing changed)
  // otherwise.
  [[gnu::noinline]] bool TakeMembers(const ShortMember* v, size_t n, bool* ok);
  // Whether the next value, a map, may be taken by TakeMembers (its first checks).
  [[gnu::always_inline]] bool MayTakeMembers() const {
    if (unusual_) return false;
    const uint32_t c = DirectChild();
    return c != kNone && nodes_[c].short_map;
  }
  bool Tag(uint64_t tag);

  // The reader's duplicate check of the text key just given (ClaimsKeys): a name with a
  // bit in the map's first evaluation (Node::Member::bit) is recorded in the map's frame
  // instead of in the reader's KeySet. The bit is the one the name's own lookup found
  // when the key came untagged (as_given), else looked up from the reader's bytes.
  // Inside a special item (a tagged map the JSON writer takes whole, perhaps at the top,
  // with no frame open here) the map is not the validator's: no claim. Always inlined
  // into the readers: GCC kept it out of line, at about 30 instructions a key.
  [[gnu::always_inline]] KeyClaim ClaimKey(std::string_view key, bool as_given) {
    if (unusual_ || frames_.empty()) return KeyClaim::kNo;
    Frame& f = frames_.back();
    if (!f.claims) return KeyClaim::kNo;
    const uint8_t bit = as_given && f.key_bit != kBitUnknown ? f.key_bit : MemberBit(f, key);
    if (bit == Node::Member::kNoBit) return KeyClaim::kNo;
    const uint64_t m = uint64_t{1} << bit;
    if (f.claimed & m) return KeyClaim::kDuplicate;
    f.claimed |= m;
    return KeyClaim::kNew;
  }

  // After the reader: the verdict (ctx.status holds the first violation).
  bool Finish();

  struct Scalar {
    uint8_t type = kTypeNull;  // one TypeBit
    bool b = false;
    enum NumKind : uint8_t { kUint, kInt, kDouble } num = kUint;
    bool integral = false;
    bool is_float = false;  // read as a floating-point number (draft 4: never an integer)
    uint64_t u = 0;
    int64_t i = 0;
    double d = 0;
    std::string_view s;
  };

 private:
  using Eval = EvalRecord;
  // TakeDecimal's check of a decimal against a node: a plain one that lets any number
  // through and whose sure range holds the decimal's approximation.
  [[gnu::always_inline]] static bool DecimalPasses(const Node& n, uint64_t digits,
                                                   size_t fraction_digits, bool negative) {
    if (!n.scalar_plain || !(n.plain_types & kTypeNumber)) return false;
    if (!(n.has & Node::kNumeric)) return true;
    // Two roundings, each within 2^-53 of its value: the digits to a double (below 2^63:
    // as a signed integer, one instruction), then the quotient by an exact power of 10.
    // (Comparing the digits with the range times the power instead, with no division,
    // took as long: paired warm time on geojson 1.002.)
    if (digits >> 63 || fraction_digits > kMaxExactPower10) return false;
    const double a =
        static_cast<double>(static_cast<int64_t>(digits)) / kExactPowersOf10[fraction_digits];
    const double v = negative ? -a : a;          // within a relative 2^-51 of the number
    return v >= n.sure_low && v <= n.sure_high;  // (Node::sure_low)
  }
  struct Extra {
    std::vector<uint64_t> claims;  // children evaluated (bits)
    // Failed unevaluated* children: index, and a map's member name (a view of the reader's
    // bytes, or of a copy in key_copies_ when the name was its frame's KeyStore).
    std::vector<std::pair<uint64_t, std::string_view>> uneval;
    std::vector<uint32_t> seen_more;  // watched names past the 64th
    bool claims_all = false;
  };
  // 16 bytes (12 of fields), for the same reason.
  struct alignas(16) Slot {
    uint32_t owner;
    uint32_t node;
    SlotKind kind;
  };
  // 128 bytes of fields, aligned to 64, so that a frame's index is a shift
  // (frames_.back() is read at every event): a field more makes it 192 (checked below).
  struct alignas(64) Frame {
    uint64_t count = 0;   // children so far
    uint64_t offset = 0;  // where the container starts
    uint32_t evals_begin = 0;
    uint32_t slots_begin = 0;
    uint32_t extras_begin = 0;
    uint32_t marks_begin = 0;  // canonical capture: member / item starts
    size_t canon_begin = 0;
    // How the children get their subschemas (one byte, and child shares item_slots_end's
    // room):
    // - kEach: slots made for each child (OnKey, MakeItemSlots).
    // - kKept: arrays: from item `stable_from` on, every item is due to the same
    //   subschemas (past every prefixItems, with no evaluation tracking item indexes), so
    //   once that item's slots are made they are kept for the rest of the array (up to
    //   item_slots_end) instead of being made again per item.
    // - kDirect: a direct frame, whose one evaluation is of a Node::direct_map /
    //   direct_array node, the container's one slot: a member's subschema is found by
    //   DirectKey (into `child`), an item's read from the node; a scalar is judged against
    //   it at once (ScalarChild), and a container opens its frame from it (OnBegin), with
    //   no slot.
    // - kCaptured: a direct frame that is captured: an array with uniqueItems, or any
    //   direct frame inside a captured value. Read as kDirect, its children's canonical
    //   bytes and marks made first (MapKey, OnScalar); closed by CloseDirectCaptured.
    // - kInts: a kPending frame whose items so far are unsigned integers, at most
    //   kMaxInts of them, kept in ints_ with no capture (OnScalar): citm's id lists. Any
    //   other item, or a container, first captures them as StartCapture and CaptureScalar
    //   would have (IntsToCapture); at its end (CloseInts), distinct items within the
    //   counts pass with no capture, anything else is captured and closed as kCaptured.
    // - kTexts: the same for strings, at most kMaxTexts of them in kMaxTextBytes, their
    //   bytes copied to text_bytes_ (TextsToCapture, CloseTexts): package.json's keywords,
    //   files, os and cpu.
    // - kPending: a direct array with uniqueItems (Node::captures_items) outside any
    //   captured value, before its first item: that item makes it kCaptured
    //   (StartCapture), so an empty one is never captured.
    // - kLone: a kEach map (not captured) whose current member is lone: a name only its
    //   first evaluation has work for (the frame's only one, or a name past a planned
    //   frame's rest_lengths or rest_bits), when that evaluation takes a name as a direct
    //   frame's does (Lone). The member is then read as a direct frame's: DirectKey keeps its
    //   subschema in `child`, with no slot. The next name sets the mode again (MapKey).
    //   Also a name only the first evaluation has work for that is a Member::sole member
    //   of its node, when the evaluation takes other names another way (LoneMember).
    // - kLeaf: a direct array of a Node::leaf_array node opened by OnBegin's common case,
    //   with its evaluation not yet made. An end that its counts pass pops it with nothing
    //   to deliver (a passing kMust verdict changes nothing); any other end first makes the
    //   evaluation, as OpenDirect would have, and the frame kDirect (Unleaf). Until then,
    //   its evals_begin is its parent's: a live evaluation (as DirectChild found it when
    //   the leaf opened), which its children's verdicts reach at once, as they would have
    //   through the leaf's (kMust all the way): a scalar is judged by ScalarChild with
    //   that evaluation's, and a container (a leaf frame: twitter's hashtags and their
    //   indices; a direct frame: citm's areas; a union's: workflow's jobs) has it as its
    //   owner; when a child is done nothing of it is left in evals_. DirectChild takes a
    //   leaf frame's child as a direct frame's.
    // - kLeafMap: the same for a map of a Node::leaf_map node: its names so far were
    //   members its table passes at once, or names its plain checks pass (LeafKey), the
    //   watched ones kept in `seen`. Any other name first makes the evaluation (Unleaf).
    // - kChoose: a map due to one node with a UnionChoice (its one slot is the parent's
    //   last), before its first name: no evaluation is made yet. The first name makes the
    //   plan of the leaves it leaves live (MakeChoice), then is read as any kEach map's;
    //   the choice's value_name waits for its value (kChooseValue, the name's offset in
    //   rest_bits): a string narrows the leaves, anything else leaves them as the name did.
    //   An end with no name makes the full plan first. Until the choice, `capture` is set
    //   (nothing is captured): MapKey's and CloseGeneral's capture tests take the name and
    //   the end to the choice, with no test more for any other map.
    union {
      uint64_t stable_from = 0;  // arrays
      // Maps: the ObjectPlan::rest_lengths of a planned frame (a name of another length
      // has work in its first evaluation alone), all ones for any other.
      uint64_t rest_lengths;
    };
    uint64_t rest_bits = 0;  // maps: ObjectPlan::rest_bits, as rest_lengths
    union {
      uint32_t item_slots_end = 0;  // kKept
      // kCaptured, kLone, kDirect, kLeafMap: the current member's subschema, or kNone.
      uint32_t child;
    };
    // (In this order: OnScalar and OnBegin compare.)
    enum Mode : uint8_t {
      kChoose,
      kChooseValue,
      kEach,
      kKept,
      kPending,
      kInts,
      kTexts,
      kCaptured,
      kLone,
      kDirect,
      kLeafMap,
      kLeaf
    } mode = kEach;
    bool is_map = false;
    bool expect_key = false;
    bool capture = false;
    // Maps: whether the first evaluation's node has member bits (ClaimKey), and the
    // current name's bit when its lookup found it (Node::Member::kNoBit: no bit, or no
    // member), kBitUnknown when it was not looked up.
    bool claims = false;
    uint8_t key_bit = 0;
    // Maps read by DirectKey: the place in the first evaluation's member table of the name
    // expected next (Node::FindMemberFrom), Node::Member::kNoPlace when none is.
    uint16_t expect = 0;
    // The node of the frame's first evaluation (evals_[evals_begin].node), kNone when it has
    // none: read from here, its load does not wait on the evaluation's.
    uint32_t node = kNone;
    uint64_t claimed = 0;  // the bits of the names claimed so far
    // The current member's name (maps): a view of the reader's text, which stays in place
    // while its map is read (a reader keeps every key's bytes for the whole request), or of
    // the frame's KeyStore for an integer key or a tagged one.
    std::string_view key;
    // Maps read the kEach way: whether the first evaluation takes a name as a direct
    // frame's does (SetLone), so that a name no other evaluation may have work for is lone.
    bool lone_names = false;
    // Maps read the kEach way whose first evaluation takes a name some other way (not
    // lone_names): whether its Member::sole members are lone (LoneMember).
    bool lone_members = false;
    uint64_t seen = 0;  // kLeafMap: the watched names present so far (Eval::seen once made)
    // Maps: the member table of `node` (set wherever `node` is), so that ExpectedMember's
    // load of the expected entry waits on one load, not on the node's table pointer too.
    const Node::Member* table = nullptr;
  };
  static_assert(sizeof(Frame) == 128, "a Frame's index is a shift");

  bool OnScalar(const Scalar& v);
  // A string that is no member name (out of line: Text, which takes every name, then makes
  // only tail calls and keeps no frame of its own).
  [[gnu::noinline]] bool TextValue(std::string_view s);
  // Text in a special item, or read back from one (replaying_).
  [[gnu::noinline]] bool SpecialText(std::string_view s);
  // A value of a direct frame (or of a lone member) that its subschema's node passes by
  // `passes` (a member with no subschema passes): ScalarChild's work, with no Scalar made
  // (the charge of extras left to the caller). False, with nothing changed, for a value
  // that is none of a direct frame's or does not pass: it goes the whole way.
  template <class Passes>
  [[gnu::always_inline]] bool PassDirect(Passes&& passes) {
    if (stopped_ || frames_.empty()) return false;
    Frame& f = frames_.back();
    if (f.mode < Frame::kLone || f.expect_key) return false;
    const uint32_t c = f.is_map ? f.child : ItemNode(nodes_[f.node], f.count);
    if (c != kNone && !passes(nodes_[c])) return false;
    offset_hold_ &= kReplaying;  // (item_offset_ is the value's)
    ++f.count;
    if (f.is_map) f.expect_key = true;
    return true;
  }
  // A scalar child of a direct frame (Frame::kDirect), read at `offset`.
  [[gnu::always_inline]] inline bool ScalarChild(Frame& f, const Scalar& v, uint64_t offset);
  // Whether a map frame's one evaluation is its node's direct one (a kDirect or kCaptured
  // frame), not the first of a kEach frame's (a kLone member).
  static bool IsDirect(const Frame& f) {
    return f.mode == Frame::kDirect || f.mode == Frame::kCaptured;
  }
  // A scalar member of a direct frame whose subschema `item` is a Node::kCondMember copy
  // (NodeRare::cond_direct, its evaluation live): judged by the member's own subschema as
  // ScalarChild would, then, in a direct frame, by each member-judged branch's subschema
  // for it, a failure recorded in the evaluation's EvalRecord::cond.
  [[gnu::noinline]] bool CondChild(Frame& f, const Node& item, const Scalar& v);
  // A null or a boolean (type kTypeNull or kTypeBoolean, b its value) that the inline
  // checks did not pass: a kDirect frame's member whose Node::kCondMember copy judges the
  // type by the type alone (NodeRare::cond_by_type) takes CondChild's verdicts from the
  // copy's bits, with no Scalar made; any other goes to OnScalar.
  [[gnu::noinline]] bool NullOrBoolScalar(uint8_t type, bool b);
  // The same for a container member (OnBeginRest): the branches' subschemas judge it by its
  // type (as NodeRare::cond_direct has them); the member's own subschema, returned, opens
  // its frame.
  [[gnu::noinline]] uint32_t CondContainer(const Frame& p, const Node& item, bool is_map);
  // The end of the frame f of a Node::kCondCount copy, evaluation e (FinalizeDirect): when
  // its parent is a direct frame whose evaluation it delivers to, each branch's subschema
  // for it judges its count, a failure recorded in that evaluation's EvalRecord::cond.
  [[gnu::noinline]] void CondCount(uint32_t e, const Frame& f);
  // The same for a Node::kCondNested copy's map (the last frame): the bits its members set
  // in its evaluation (the branches' properties failed) go to its parent's.
  [[gnu::noinline]] void CondNested(uint32_t e);
  // The evaluation that evaluation e (the last frame's) delivers to when that is its
  // parent frame's first and the parent a direct frame, whose branch bits (EvalRecord::cond)
  // CondCount and CondNested set; kNone otherwise.
  uint32_t CondOwner(uint32_t e) const;
  static constexpr size_t kMaxExactPower10 = 22;  // 10^22 is the last power of 10 a double holds
  static constexpr double kExactPowersOf10[kMaxExactPower10 + 1] = {
      1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  // The subschema of item i of an array due to n (kNone: none).
  static uint32_t ItemNode(const Node& n, uint64_t i) {
    return i < n.prefix_items.size() ? n.prefix_items[i] : n.items;
  }
  bool OnKey(std::string_view key) {
    Frame& f = frames_.back();
    const uint64_t offset = item_offset_;
    offset_hold_ &= kReplaying;
    f.key = key;
    f.expect_key = false;
    f.key_bit = kBitUnknown;
    if (f.mode == Frame::kDirect) return DirectKey(f, key, offset);
    return f.mode == Frame::kLeafMap ? LeafKey(f, key, offset) : MapKey(f, key, offset);
  }
  static constexpr uint8_t kBitUnknown = 0xfe;
  // ClaimKey's lookup of a name the frame's first evaluation did not look up.
  [[gnu::noinline]] uint8_t MemberBit(const Frame& f, std::string_view key) const;
  // A member name in any frame but a kDirect one: its capture, then DirectKey for a
  // kCaptured frame or a lone member, EachKey for any other.
  bool MapKey(Frame& f, std::string_view key, uint64_t offset);
  // A kChoose frame's first name; a kChooseValue frame's value (a string: `value`, else
  // null); the evaluations of the leaves still live made (Frame::kChoose).
  [[gnu::noinline]] bool ChooseKey(Frame& f, std::string_view key, uint64_t offset);
  [[gnu::noinline]] bool ChooseValue(Frame& f, const std::string_view* value);
  bool MakeChoice(Frame& f, const ChoiceTable::Entry& choice);
  [[gnu::noinline]] bool CloseChoose(Frame& f);  // a kChoose frame's end: the full plan
  // The union's violation when the leaf of such a frame failed and the union counts.
  [[gnu::noinline]] void UnionFailed(uint32_t e, const Frame& f);
  // A live leaf's evaluation as its union's (MakeChoice, SettleToDirect, OpenLeafOfUnion):
  // its role names the union (kAny or kOne, role_index), so that UnionFailed reports it.
  void NameUnion(Eval& ev, uint32_t union_node) const {
    ev.role = nodes_[union_node].one_of.empty() ? kAny : kOne;
    ev.role_index = union_node;
  }
  [[gnu::noinline]] bool CapturedKey(Frame& f, std::string_view key, uint64_t offset);
  // A member name in a direct frame or a lone member / in any other (both after its
  // capture).
  [[gnu::noinline]] bool DirectKey(Frame& f, std::string_view key, uint64_t offset);
  // The member a direct frame expects next (Frame::expect) when it is the name, of at most
  // 32 bytes (its compare needs no memcmp), and Member::direct; else null.
  [[gnu::always_inline]] const Node::Member* ExpectedMember(const Frame& f,
                                                            std::string_view key) const {
    const uint16_t at = f.expect;
    if (at == Node::Member::kNoPlace || key.size() > 32) return nullptr;
    const MemberKey k = MemberKeyOf(key);
    const Node::Member& m = f.table[at];
    if (m.a == k.a && m.b == k.b && m.size == key.size() && m.direct &&
        (key.size() <= 16 || SameBytes(key, nodes_[f.node].member_names[at])))
      return &m;
    return nullptr;
  }
  // The name is member m, a Member::direct one: its subschema for the value, the member
  // expected next, its bit for the duplicate check, and its watched bit in `seen`.
  [[gnu::always_inline]] void TakeMember(Frame& f, const Node::Member& m, uint64_t* seen,
                                         uint64_t offset) {
    f.expect = m.next;
    f.key_bit = m.bit;
    f.child = m.property;
    if (m.watch != kNone) *seen |= uint64_t{1} << m.watch;
    item_offset_ = offset;
  }
  // A kLeafMap frame's name: DirectKey's common case (the expected member, that
  // Member::direct passes), its watched bit in the frame's `seen`; LeafKeyFind's: the same
  // for a member the table finds, or a name that is none, which propertyNames' plain check
  // passes (DirectKeyNames' case). Any other name makes the evaluation (Unleaf) and goes
  // on to DirectKeyFind (LeafKeyRest).
  [[gnu::noinline]] bool LeafKey(Frame& f, std::string_view key, uint64_t offset);
  [[gnu::noinline]] bool LeafKeyFind(Frame& f, std::string_view key, uint64_t offset);
  [[gnu::noinline]] bool LeafKeyRest(Frame& f, std::string_view key, uint64_t offset);
  // Whether propertyNames' subschema of n passes the name by its plain check (false: the
  // whole way judges it).
  [[gnu::always_inline]] inline bool NamePassesPlain(const Node& n, std::string_view key) const;
  // The subschema a direct map's node n has for a name that is no member: its one
  // pattern's when it matches, else additionalProperties', else none (kNone). False when
  // additionalProperties is false: the whole way refuses the name, and says why.
  [[gnu::always_inline]] inline bool NonMemberChild(const Node& n, std::string_view key,
                                                    uint32_t* child) const;
  // DirectKey's other names: found in the member table, or DirectKeyRest's.
  [[gnu::noinline]] bool DirectKeyFind(Frame& f, std::string_view key, uint64_t offset);
  // DirectKeyFind's names in a map with no properties.
  [[gnu::noinline]] bool DirectKeyNames(Frame& f, std::string_view key, uint64_t offset);
  // DirectKey's every case: a name that is no member, one watched past the 64th, one with
  // no subschema, patternProperties, propertyNames, a settled evaluation.
  [[gnu::noinline]] bool DirectKeyRest(Frame& f, std::string_view key, uint64_t offset);
  // Whether a name may have work in a planned frame's evaluations past its first
  // (ObjectPlan::rest_lengths, rest_bits).
  static bool RestMay(const Frame& f, std::string_view key) {
    return (f.rest_lengths & LengthBit(key.size())) != 0 &&
           (f.rest_bits == ~uint64_t{0} || (f.rest_bits & NameBit(key)) != 0);
  }
  // Whether the name is a lone member of a kEach map (Frame::kLone): only the first
  // evaluation has work for it (RestMay says no, or there is no other: SetLone), and that
  // evaluation takes a name as a direct frame's does (Frame::lone_names).
  static bool Lone(const Frame& f, std::string_view key) {
    return f.lone_names && !RestMay(f, key);
  }
  // A kEach map's lone_names, once its evaluations are made: its first evaluation gives a
  // member at most one subschema (no patternProperties but a one_pattern one) and keeps no
  // record of it (no tracking). When that evaluation is the frame's only one, no name may
  // have work past it: rest_lengths 0, so RestMay says no to every name. (The frame's
  // evaluations stay as they are made while it is open: its children's come and go.)
  // Else, lone_members: when the node has members and no propertyNames (Member::sole).
  // Even when the evaluation tracks the names it evaluates (unevaluatedProperties: package's
  // root): its own record of a name is never read (Finalize reads the records of what it
  // applied in place, and its own list of the names it did not evaluate, which a member
  // is not on), so a lone member needs none.
  void SetLone(Frame& f) {
    const size_t evals = evals_.size() - f.evals_begin;
    f.lone_names = evals != 0 && !evals_[f.evals_begin].tracks && nodes_[f.node].lone_keys;
    f.lone_members =
        evals != 0 && !f.lone_names && nodes_[f.node].kind == Node::kSchema &&
        (nodes_[f.node].key_work & (Node::kKeyMembers | Node::kKeyNames)) == Node::kKeyMembers;
    if (f.lone_members) f.expect = Node::Member::kNoPlace;  // (a place in f.node's table)
    if (evals == 1) f.rest_lengths = 0;
  }
  // A kEach map's name that RestMay says no other evaluation has work for, when it is a
  // Member::sole member of the first evaluation's node and that evaluation is not settled:
  // the member is read as a lone one (Frame::kLone), its subschema in `child`, as EachKey
  // would have made its one slot (and watched the name). False, with nothing changed,
  // for any other name: EachKey takes it.
  [[gnu::noinline]] bool LoneMember(Frame& f, std::string_view key, uint64_t offset);
  [[gnu::noinline]] bool EachKey(Frame& f, std::string_view key, uint64_t offset);
  // After EachKey, when an uncommitted evaluation's additionalProperties refused the name:
  // a planned union's map whose branches but one are now ruled out becomes that branch's
  // direct frame, as MakeChoice makes one at the first name (DirectLeaf) when the first
  // name tells (workflow's jobs, whose first name is mostly one both branches take).
  [[gnu::noinline]] void SettleToDirect(Frame& f);
  // A map due to one union whose plan leaves one branch that a direct frame reads
  // (DirectLeaf: the other branches' types take no object, or are no branches of a plan),
  // or an array due to one whose NodeRare::array_leaf is that branch: the branch's direct
  // frame, opened as MakeChoice opens one. False when stopped.
  [[gnu::noinline]] bool OpenLeafOfUnion(uint32_t union_node, uint32_t leaf, const Slot& s,
                                         bool is_map, uint64_t offset);
  // What both do with a watched name, a member additionalProperties refuses, and a name
  // propertyNames judges. False when stopped.
  void Watch(Eval& ev, uint32_t w);
  [[gnu::noinline]] bool RefuseMember(Eval& ev, const Node& n, std::string_view key,
                                      uint64_t offset);
  [[gnu::noinline]] bool JudgeName(Eval& ev, const Node& n, std::string_view key, uint64_t offset);
  // Whether a container due to n alone opens a direct frame.
  static bool Direct(const Node& n, bool is_map) { return is_map ? n.direct_map : n.direct_array; }
  // Opens a direct frame of `node` for the container at `offset`, its verdict for `owner`
  // as `kind`; captured when its parent is (`capture`: the container's mark made), or for
  // an array with uniqueItems.
  // (`common`: from OnBegin's common case, which needs no charge within the reserved rooms.)
  bool OpenDirect(uint32_t node, uint32_t owner, SlotKind kind, bool committed, bool is_map,
                  uint64_t offset, bool capture, bool common = false);
  // A Frame::kLeaf frame of `node` for the array at `offset`, or a kLeafMap one for the
  // map (OnBegin's common case). False when stopped.
  template <bool kMap>
  bool OpenLeaf(uint32_t node, uint64_t offset);
  template <bool kMap>
  [[gnu::always_inline]] void FillLeaf(Frame& f, uint32_t node, uint64_t offset);
  // Past shallow_frames_.
  [[gnu::noinline]] bool OpenLeafDeep(uint32_t node, uint64_t offset, bool is_map);
  // OnBegin's common case: OpenDirect's, with no call when the frame and the evaluation
  // are within the rooms reserved from the start (as OpenLeaf).
  bool OpenShallow(uint32_t node, uint32_t owner, bool committed, bool is_map);
  // OpenShallow's other case: OpenDirect, whose eight arguments would not pass in
  // registers, so OpenShallow's own call to it could not be a tail call.
  [[gnu::noinline]] bool OpenDeep(uint32_t node, uint32_t owner, bool committed, bool is_map);
  // The top frame's evaluation (a kLeaf or kLeafMap frame's), made as OpenDirect would
  // have made it, and the frame kDirect. False when stopped.
  [[gnu::noinline]] bool Unleaf();
  // A direct frame's one evaluation, of `node` on the opening container (no scope: direct
  // frames are never in a set with dynamic scopes): its record, and the record pushed.
  [[gnu::always_inline]] inline Eval DirectEval(uint32_t node, uint32_t owner, SlotKind kind,
                                                bool valid, bool committed, bool is_map) const;
  [[gnu::always_inline]] inline void PushDirectEval(uint32_t node, uint32_t owner, SlotKind kind,
                                                    bool valid, bool committed, bool is_map);
  // The fields of a direct frame (OpenDirect's, OpenShallow's) its mode and capture aside.
  [[gnu::always_inline]] inline void FillDirect(Frame& f, const Node& n, uint32_t node, uint32_t e,
                                                uint64_t offset, bool is_map);
  static constexpr size_t kReservedFrames = 16;  // frames_'s room from the start
  static constexpr size_t kReservedEvals = 64;   // evals_'s
  // A map's evaluations made from its single subschema's plan. False when stopped.
  bool MakePlanned(const ObjectPlan& plan, const Slot& s);
  // The subschema of the next child of a direct frame, a lone member (neither captured)
  // whose evaluation is not settled, or a leaf frame (whose evaluation, not made, is not:
  // its evals_begin is a live one, Frame::kLeaf) (OnBegin's common case, Empty); kNone
  // when there is none, or no such frame.
  [[gnu::always_inline]] uint32_t DirectChild() const {
    if (stopped_ || frames_.empty()) return kNone;
    const Frame& p = frames_.back();
    if (p.mode < Frame::kLone || p.expect_key) return kNone;
    const Eval& pe = evals_[p.evals_begin];
    if (!pe.valid && !pe.committed) return kNone;
    return p.is_map ? p.child : ItemNode(nodes_[p.node], p.count);
  }
  bool OnBegin(bool is_map);
  [[gnu::noinline]] bool OnBeginRest(bool is_map);  // every case OnBegin does not take
  // Whether an empty container passes n at once when n opens a direct frame for it: its
  // type, and at its end nothing or only counts and required names (PassesEnd) that
  // nothing passes.
  static bool PassesEmpty(const Node& n, bool is_map) {
    if (!Direct(n, is_map)) return false;
    if ((n.has & Node::kType) && !(n.types & (is_map ? kTypeObject : kTypeArray))) return false;
    if (n.kind != Node::kSchema || !(is_map ? n.end_object_work : n.end_array_work)) return true;
    return PassesEndWith(n, is_map, 0, 0);
  }
  bool OnEnd();
  [[gnu::noinline]] bool CloseDirect(Frame& f);          // OnEnd of a direct frame (kDirect)
  [[gnu::noinline]] bool CloseLeaf(Frame& f);            // of a kLeaf one its counts fail
  [[gnu::noinline]] bool CloseGeneral(Frame& f);         // of any other but kCaptured (kTexts too)
  [[gnu::noinline]] bool CloseDirectCaptured(Frame& f);  // of a kCaptured one
  // Whether a direct frame's evaluation passes what Finalize would check at its end, when
  // its node has Node::quick_end (false: Finalize decides).
  static bool PassesEnd(const Node& n, const Frame& f, const Eval& ev) {
    return PassesEndWith(n, f.is_map, f.count, ev.seen);
  }
  // The same for a container of `count` children and the watched names `seen`.
  static bool PassesEndWith(const Node& n, bool is_map, uint64_t count, uint64_t seen) {
    return n.quick_end && CountsPass(n, is_map, count, seen);
  }
  // The type, counts and required names of such an end (quick_end aside).
  static bool CountsPass(const Node& n, bool is_map, uint64_t count, uint64_t seen) {
    if ((n.has & Node::kType) && !(n.types & (is_map ? kTypeObject : kTypeArray))) return false;
    if (is_map)
      return count >= n.min_properties && count <= n.max_properties &&
             (seen & n.required_mask) == n.required_mask;
    return count >= n.min_items && count <= n.quick_max_items;
  }
  // Whether member-judged branch p (0 if, 1 then, 2 else) of a NodeRare::cond_direct node
  // passes a direct frame's evaluation: no member failed it (EvalRecord::cond) and the
  // names it requires were seen.
  static bool CondBranchPasses(const NodeRare& r, const Eval& ev, int p) {
    return !(ev.cond >> p & 1) && (ev.seen & r.cond_required[p]) == r.cond_required[p];
  }
  // PassesEnd for a Node::kCondNode's map (whose quick_end is false, so that no other
  // frame's end tests for it): the same counts and names, and its if / then / else verdict,
  // each branch member-judged (as Finalize judges them).
  static bool PassesCondEnd(const Node& n, const Frame& f, const Eval& ev) {
    if (!CountsPass(n, true, f.count, ev.seen)) return false;
    const NodeRare& r = n.rare();
    if (CondBranchPasses(r, ev, 0)) return !(r.cond_parts & 2) || CondBranchPasses(r, ev, 1);
    return !(r.cond_parts & 4) || CondBranchPasses(r, ev, 2);
  }
  // PassesCondEnd for a Node::kCondTable's map: its counts, each member-judged branch
  // passing, and the end table's verdict on the names seen (which takes those branches as
  // passing).
  static bool PassesCondTable(const Node& n, const Frame& f, const Eval& ev) {
    const NodeRare& r = n.rare();
    for (int p = 0; p < 3; ++p)
      if ((r.cond_parts >> p & 1) && !CondBranchPasses(r, ev, p)) return false;
    return f.count >= n.min_properties && f.count <= n.max_properties &&
           (n.end_table >> (ev.seen & 63) & 1) != 0;
  }
  // Whether Finalize would find nothing wrong at the end of evaluation e's map, read from
  // its node's end_table (Node::end_table; false: Finalize decides, and says why): the
  // evaluation tracks nothing, its member count is within bounds, every evaluation it
  // made in place is a leaf (nothing to finalize) that passed, and the table passes the
  // names it saw. (Whether it failed before does not matter: Finalize would add nothing.)
  bool PassesTable(uint32_t e, const Frame& f) const {
    const Eval& ev = evals_[e];
    const Node& n = nodes_[ev.node];
    if (!n.has_end_table || !f.is_map || ev.tracks || ev.no_table || f.count < n.min_properties ||
        f.count > n.max_properties)
      return false;
    for (uint32_t c = e + 1; c < ev.subtree_end; ++c)
      if (evals_[c].ends || !evals_[c].valid) return false;
    return (n.end_table >> (ev.seen & 63) & 1) != 0;
  }
  // A captured container's start (its canonical bytes and marks from here; its opening
  // mark), and its end: its members sorted (maps), its closing mark.
  [[gnu::noinline]] void OpenCapture(Frame& f);
  [[gnu::noinline]] void StartCapture(Frame& f);  // a kPending frame's first item
  void CloseCapture(const Frame& f);
  // With the container's frame popped: its marks dropped, and its canonical bytes too when
  // nothing around it is captured.
  void DropCapture(size_t canon_begin, uint32_t marks_begin);
  // A member name / a scalar child of a captured container: its mark and canonical bytes.
  [[gnu::noinline]] bool CaptureKey(std::string_view key);
  [[gnu::noinline]] bool CaptureScalar(const Scalar& v);
  // After a value: the parent container (if any) moves past it, its slots for the value
  // dropped.
  [[gnu::always_inline]] bool ChildDone() {
    if (frames_.empty()) {
      slots_.clear();
      return !stopped_;
    }
    Frame& p = frames_.back();
    // (Only ever fewer.)
    slots_.truncate(SlotsAfterChild(p));
    ++p.count;
    if (p.is_map) p.expect_key = true;
    return !stopped_ && AccountExtras();
  }
  // The slots of an array's next item: none to make when the array keeps its items' slots.
  void PrepareItem(Frame& f) {
    if (f.mode != Frame::kKept) MakeItemSlots(f);
  }
  [[gnu::noinline]] void MakeItemSlots(Frame& f);
  // A child no subschema of evaluation e evaluated, due to its unevaluatedProperties /
  // unevaluatedItems `node` when that is true or false: no slot, as the verdict needs no
  // value (true: nothing to record; false, the `"unevaluatedProperties": false` of a
  // closed object: the child recorded as failing now, as DeliverOther would record it
  // once read). So a member of a closed object that another subschema claims is due to
  // that one alone (a container of it opens a direct frame). Any other node gets a slot.
  [[gnu::noinline]] void UnevaluatedNoSlot(uint32_t e, uint32_t node, std::string_view key);
  bool EvalScalar(uint32_t node, const Scalar& v, uint32_t scope, bool committed);
  // A Node::scalar_union's verdict on a scalar from its branches' inline checks: 1 passes,
  // 0 fails, -1 when a branch needs its evaluation (the inline check does not settle it).
  int UnionVerdict(const Node& n, const Scalar& v) const;
  bool EvalScalarKeywords(const Node& n, const Scalar& v, bool committed);
  // The Eval of `node` on the opening container, and those it applies in place
  // (ExpandInPlace). Inlined into OnBegin, where most containers get one Eval with nothing
  // in place; the expansion's own calls go through MakeEval.
  [[gnu::always_inline]] inline void CreateEval(uint32_t node, uint32_t parent, Role role,
                                                uint32_t role_index, uint32_t owner,
                                                SlotKind owner_kind, uint32_t scope,
                                                bool committed);
  [[gnu::noinline]] void MakeEval(uint32_t node, uint32_t parent, Role role, uint32_t role_index,
                                  uint32_t owner, SlotKind owner_kind, uint32_t scope,
                                  bool committed);
  [[gnu::noinline]] void ExpandInPlace(uint32_t e, const Node& n, uint32_t scope, bool committed);
  void Finalize(uint32_t e, const Frame& f);
  // Finalize for a direct frame's evaluation e, whose end PassesEnd did not pass: nothing
  // when its node is a Node::kCondNode that PassesCondEnd passes.
  [[gnu::noinline]] void FinalizeDirect(uint32_t e, const Frame& f);
  // An evaluation that failed and is not committed: Finalize could only find it failing
  // again, with nothing to report (a branch a member already ruled out), and a failed
  // branch's record of evaluated children is not read.
  static bool Settled(const Eval& ev) { return !ev.valid && !ev.committed; }
  // Whether the evaluation saw the watched name of index w.
  bool Seen(const Eval& ev, uint32_t w) const;
  // A name_judged branch's verdict: its name test (Node::name_tests) over the names the
  // evaluation saw. Kept out of Finalize, whose frame it would grow.
  [[gnu::noinline]] bool JudgeNames(const std::vector<uint32_t>& test, const Eval& ev) const;
  void Deliver(uint32_t owner, SlotKind kind, bool ok, uint64_t index, std::string_view key) {
    if (kind == kMust) {
      if (!ok) evals_[owner].valid = false;
      return;
    }
    DeliverOther(owner, kind, ok, index, key);
  }
  // A closed container's root evaluation: its verdict to the Eval that applied it (the
  // frame popped: the parent's current child is the container), or to the payload's.
  void DeliverRoot(const Eval& r) {
    if (r.owner == kNone) {
      if (!r.valid) failed_ = true;
    } else {
      Deliver(r.owner, r.owner_kind, r.valid, frames_.back().count, frames_.back().key);
    }
  }
  void DeliverOther(uint32_t owner, SlotKind kind, bool ok, uint64_t index, std::string_view key);
  // Where the slots of the frame's current child end when the child is done: the item
  // slots an array keeps stay.
  static uint32_t SlotsAfterChild(const Frame& f) {
    return f.mode == Frame::kKept ? f.item_slots_end : f.slots_begin;
  }
  uint32_t ScopeFor(uint32_t node, uint32_t scope);
  uint32_t Dynamic(const Node& n, uint32_t scope) const;
  Extra& ExtraOf(Eval& e) { return e.extra != kNone ? extras_[e.extra] : NewExtra(e); }
  [[gnu::noinline]] Extra& NewExtra(Eval& e);
  void SetBit(std::vector<uint64_t>& bits, uint64_t i) {
    const size_t word = static_cast<size_t>(i >> 6);
    if (bits.size() <= word) [[unlikely]]
      GrowBits(bits, word);
    bits[word] |= uint64_t{1} << (i & 63);
  }
  [[gnu::noinline]] void GrowBits(std::vector<uint64_t>& bits, size_t word);
  // Charges what the evaluations' records (claims, unevaluated children, names past 64)
  // have grown by since the last charge.
  bool AccountExtras();
  static bool TestBit(const std::vector<uint64_t>& bits, uint64_t i);
  void Canonical(const Scalar& v, std::string* out) const;
  bool StringOf(const Scalar& v, std::string_view* s);
  bool Account();

  // A violation of `keyword` of node n (message made only when it is recorded).
  template <class Message>
  void Violation(const Node& n, std::string_view keyword, uint64_t offset, size_t path_frames,
                 Message&& message);
  // The JSON Pointer of a value `frames` containers deep (the current one: frames_.size()).
  std::string PathOf(size_t frames) const;
  std::string KeywordLocation(const Node& n, std::string_view keyword) const;
  bool Stopped() const { return stopped_; }

  // Tagged items the JSON mapping gives a text or a number of their own (bignums, IP
  // addresses, timestamps as text, byte strings): written by the JSON writer, read back.
  bool SpecialNull();
  [[gnu::noinline]] bool SpecialUint(uint64_t u);
  [[gnu::noinline]] bool SpecialDouble(double d);
  // A double Double does not pass at once (or not finite): the whole way.
  [[gnu::noinline]] bool DoubleScalar(double d);
  // An integer Uint does not pass at once: as a Scalar, the whole way.
  [[gnu::noinline]] bool UintScalar(uint64_t u);
  bool SpecialBool(bool b);
  bool SpecialBegin(bool is_map);
  bool SpecialEnd(bool is_map);
  void StartSpecial();
  bool SpecialDone();

  // The working buffers of the thread's last Validator, kept for its next one (a request
  // after a request, a record after a record): the stacks every event uses are swapped in,
  // the rest (Rare) used where they are, through references; all cleared after, so a
  // request allocates only where it outgrows them. Buffers past kSpareBytes are freed
  // instead. The budget is charged NeededBytes (what buffers grown from empty would hold
  // for this request), so a request's verdict never depends on what ran before it on the
  // thread. A Validator made while another one on its thread holds them has its own.
  struct Spare;
  struct Rare;
  static bool ClaimSpare();
  Rare* OwnRare();
  static constexpr uint64_t kSpareBytes = uint64_t{1} << 20;
  static Spare& ThreadSpare();
  void SwapBuffers(Spare& s);
  uint64_t HeldBytes() const;
  uint64_t NeededBytes() const;

  Context& ctx_;
  const Compiled& set_;
  const Node* nodes_;
  uint32_t root_;
  uint32_t document_;
  std::vector<Status>* violations_;
  uint32_t max_violations_;
  bool format_assertion_;
  bool all_errors_;
  // Frames within kReservedFrames and max_depth + 1: a frame pushed below this many needs
  // no depth check and no charge (OpenLeaf).
  uint64_t shallow_frames_;
  bool stopped_ = false;
  bool failed_ = false;
  bool took_spare_ = false;         // its buffers are the thread's spare ones (Spare)
  std::unique_ptr<Rare> own_rare_;  // (when it took no spare)
  Rare* rare_;                      // the spare's or its own: the references below

  uint64_t item_offset_ = 0;
  // Whether item_offset_ holds the current item's start (kHeld: set by its first
  // ItemStart, a tag's before its item's, until the item is taken), and kReplaying while a
  // special item's text is read back at the tagged item's offset (replaying_): ItemStart
  // tests one byte for both.
  static constexpr uint8_t kHeld = 1, kReplaying = 2;
  uint8_t offset_hold_ = 0;
  bool unusual_ = false;  // special_ or replaying_: one byte where the fast paths test both

  // The items of the one Frame::kInts frame (only scalars come while it is open, so there
  // is never more than one).
  static constexpr size_t kMaxInts = 16;
  uint64_t ints_[kMaxInts];
  // A kInts frame's items as a kCaptured frame's: its capture opened, each item's mark and
  // canonical bytes.
  [[gnu::noinline]] bool IntsToCapture(Frame& f);
  [[gnu::noinline]] bool CloseInts(Frame& f);
  // As ints_, for the one Frame::kTexts frame: its strings' bytes one after another, and
  // where each ends.
  static constexpr size_t kMaxTexts = 16;
  static constexpr size_t kMaxTextBytes = 512;
  char text_bytes_[kMaxTextBytes];
  uint16_t text_ends_[kMaxTexts];
  std::string_view KeptText(uint64_t i) const {
    const size_t from = i == 0 ? 0 : text_ends_[i - 1];
    return {text_bytes_ + from, text_ends_[i] - from};
  }
  [[gnu::noinline]] bool TextsToCapture(Frame& f);
  [[gnu::noinline]] bool CloseTexts(Frame& f);
  // A kInts or kTexts frame's end: its type and counts (KeptCountsPass), and when its items
  // pass too, its close with nothing to finalize (CloseKept).
  bool KeptCountsPass(const Frame& f) const;
  bool CloseKept(Frame& f);

  uint8_t opening_type_ = 0;  // kTypeObject / kTypeArray while a container's Evals are made
  PodStack<Eval> evals_;
  PodStack<Slot> slots_;
  // The open containers. A closed container's Frame stays for the next one, so a member
  // name's buffer is allocated once per depth, not once per container.
  // The top is kept as a pointer (null when empty), read at every event: one load, where
  // the pool's start and the depth were two and an index.
  class FrameStack {
   public:
    // Moved (a Validator swaps its stacks with the thread's spare ones), never copied: a
    // copy's top would be the other's.
    FrameStack() = default;
    FrameStack(FrameStack&&) = default;
    FrameStack& operator=(FrameStack&&) = default;
    bool empty() const { return top_ == nullptr; }
    size_t size() const { return depth_; }
    bool HasRoom() const { return depth_ < pool_.size(); }  // next() grows nothing
    Frame& next_within() { return pool_[depth_]; }          // next() when HasRoom()
    Frame& back() { return *top_; }
    const Frame& back() const { return *top_; }
    Frame& operator[](size_t i) { return pool_[i]; }
    const Frame& operator[](size_t i) const { return pool_[i]; }
    // The frame above the top, to fill in place, then push_next() (what is read while it
    // is filled still sees the old top).
    Frame& next() {
      if (depth_ == pool_.size()) Grow();
      return pool_[depth_];
    }
    void push_next() { top_ = pool_.data() + depth_++; }
    void pop() { top_ = --depth_ == 0 ? nullptr : top_ - 1; }
    void reserve(size_t n) {
      pool_.reserve(n);
      Retop();
    }
    void clear() {
      depth_ = 0;
      top_ = nullptr;
    }
    size_t capacity() const { return pool_.capacity(); }

   private:
    // One more pooled frame. (A key that is no view of the reader's bytes lives in
    // key_stores_, which the pool's move leaves in place.)
    void Grow() {
      pool_.emplace_back();
      Retop();
    }
    void Retop() { top_ = depth_ == 0 ? nullptr : pool_.data() + depth_ - 1; }
    std::vector<Frame> pool_;
    size_t depth_ = 0;
    Frame* top_ = nullptr;
  };
  FrameStack frames_;
  std::vector<Extra>& extras_;
  uint32_t extras_used_ = 0;
  // The text of the top frame's current name when it is no view of the reader's bytes (an
  // integer key's decimal text, a tagged key's copy, which the next tagged item's buffers
  // overwrite), one string a depth, made at its first use: rare, so kept out of the Frame.
  // Each in its own allocation, so that growing the list moves no text a key views.
  std::string& KeyStore() {
    const size_t depth = frames_.size() - 1;
    if (key_stores_.size() <= depth) key_stores_.resize(depth + 1);
    if (!key_stores_[depth]) key_stores_[depth] = std::make_unique<std::string>();
    return *key_stores_[depth];
  }
  // Whether a name is a view of the top frame's KeyStore.
  bool InKeyStore(std::string_view name) const {
    const size_t depth = frames_.size() - 1;
    return depth < key_stores_.size() && key_stores_[depth] && !name.empty() &&
           name.data() == key_stores_[depth]->data();
  }
  std::vector<std::unique_ptr<std::string>> key_stores_;
  // Copies of member names that Extra::uneval records and that were no reader's bytes (an
  // integer key's text, a tagged key): a frame's KeyStore is rewritten at its next name.
  std::forward_list<std::string> key_copies_;  // (empty: no allocation, unlike a deque)
  std::vector<uint64_t>& marks_;
  std::string& canon_;
  std::string& scalar_canon_;  // a scalar's canonical form for const / enum (reused)
  // A captured map's members while they are sorted (CloseCapture; reused). No larger
  // than the capture's marks and bytes, which are charged.
  std::vector<std::string_view>& sort_parts_;
  std::string& sort_bytes_;
  uint64_t charged_ = 0;
  // Extra records' and dynamic scopes' growth this request (NeededBytes).
  uint64_t extra_bytes_ = 0;
  uint64_t extra_accounted_ = 0;  // extra_bytes_ at the last charge

  struct ScopeEntry {
    uint32_t resource;
    uint32_t parent;
  };
  std::vector<ScopeEntry>& scopes_;
  std::unordered_map<uint64_t, uint32_t> scope_ids_;

  // Special items.
  bool special_ = false;
  int special_depth_ = 0;
  bool replaying_ = false;      // reading a special item's JSON back (SpecialDone)
  uint64_t replay_bignum_ = 0;  // its integer past 64 bits: the tag before the magnitude
  OutputBuffer special_out_;
  std::optional<JsonWriter> special_writer_;
};

}  // namespace rosetta::codec::schema
