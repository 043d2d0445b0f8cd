// Loads JSON Schema documents and compiles them into Nodes (compiled.h): URIs, $id,
// anchors and $refs resolved once, drafts' differences settled here so that the
// evaluator knows one set of keywords.
#include <re2/re2.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

#include "rosetta/codec/json_schema.h"
#include "rosetta/codec/sink.h"
#include "schema/compiled.h"
#include "schema/metaschemas.h"
#include "schema/regex.h"
#include "schema/schema_json.h"
#include "schema/uri.h"

namespace rosetta::codec {

namespace schema {

Compiled::~Compiled() = default;

namespace {

// Vocabularies a 2019-09 / 2020-12 metaschema can leave out ($vocabulary).
enum Vocab : uint8_t {
  kVocabApplicator = 1,
  kVocabValidation = 2,
  kVocabUnevaluated = 4,
  kVocabFormatAssertion = 8,
  kVocabAll = 7,
};

struct Doc {
  std::string name;  // empty: not requestable (a remote, a metaschema)
  std::string file;
  std::string uri;
  JVal root;
};

// Where a schema value sits: what its $refs resolve against.
struct Pos {
  uint32_t doc;
  std::string base;
  uint32_t resource;
  std::string pointer;  // in the document
  Draft draft;
  uint8_t vocab;
  const JVal* value = nullptr;
};

std::string_view StripEmptyFragment(std::string_view uri) {
  if (!uri.empty() && uri.back() == '#') uri.remove_suffix(1);
  return uri;
}

bool DraftOfUri(std::string_view uri, Draft* draft) {
  uri = StripEmptyFragment(uri);
  if (uri == "http://json-schema.org/draft-04/schema" ||
      uri == "https://json-schema.org/draft-04/schema")
    return *draft = Draft::k4, true;
  if (uri == "http://json-schema.org/draft-06/schema" ||
      uri == "https://json-schema.org/draft-06/schema")
    return *draft = Draft::k6, true;
  if (uri == "http://json-schema.org/draft-07/schema" ||
      uri == "https://json-schema.org/draft-07/schema")
    return *draft = Draft::k7, true;
  if (uri == "https://json-schema.org/draft/2019-09/schema") return *draft = Draft::k2019, true;
  if (uri == "https://json-schema.org/draft/2020-12/schema") return *draft = Draft::k2020, true;
  return false;
}

// Where a keyword's value holds subschemas (Compiler::Index): a map of them, an array of
// them, one, or `items` (an array of them in drafts 4 to 2019-09, else one). One hash
// lookup a member name (and no pointer made for a name that is none of them): comparing it
// with each of them in turn, and the pointers, took more than half of indexing a schema.
enum class SubschemaKeyword : uint8_t { kNone, kMap, kArray, kOne, kItems };
SubschemaKeyword SubschemaKeywordOf(std::string_view key) {
  using K = SubschemaKeyword;
  static const auto* const kinds = new std::unordered_map<std::string_view, K>{
      {"properties", K::kMap},
      {"patternProperties", K::kMap},
      {"definitions", K::kMap},
      {"$defs", K::kMap},
      {"dependentSchemas", K::kMap},
      {"dependencies", K::kMap},
      {"allOf", K::kArray},
      {"anyOf", K::kArray},
      {"oneOf", K::kArray},
      {"prefixItems", K::kArray},
      {"items", K::kItems},
      {"additionalProperties", K::kOne},
      {"additionalItems", K::kOne},
      {"unevaluatedItems", K::kOne},
      {"unevaluatedProperties", K::kOne},
      {"contains", K::kOne},
      {"propertyNames", K::kOne},
      {"not", K::kOne},
      {"if", K::kOne},
      {"then", K::kOne},
      {"else", K::kOne},
      {"contentSchema", K::kOne},
  };
  const auto it = kinds->find(key);
  return it == kinds->end() ? K::kNone : it->second;
}

// What the compiler keeps of a node's keywords until the set is made, and no longer:
// `properties` become its member table, `required` its watched names.
struct Source {
  std::vector<Property> properties;  // in document order
  std::vector<std::string> required;
};

class Compiler {
 public:
  Compiler(Compiled* out, const JsonSchemaSet::LoadOptions& options)
      : out_(out), options_(options) {}

  bool AddDocument(Doc doc, std::string* error) {
    docs_.push_back(std::make_unique<Doc>(std::move(doc)));
    const uint32_t d = static_cast<uint32_t>(docs_.size() - 1);
    out_->documents.push_back(docs_[d]->file.empty() ? docs_[d]->uri : docs_[d]->file);
    Draft draft = default_draft_;
    uint8_t vocab = kVocabAll;
    const JVal& root = docs_[d]->root;
    if (root.kind == JVal::kObject) {
      if (const JVal* s = root.Get("$schema"); s && s->kind == JVal::kString) {
        if (!MetaDraft(s->s, &draft, &vocab, error)) return Fail(d, "/$schema", *error, error);
      }
    }
    const uint32_t resource = NewResource(docs_[d]->uri);
    uri_to_pos_[StrippedUri(docs_[d]->uri)] =
        NewPos(Pos{d, docs_[d]->uri, resource, "", draft, vocab}, &root);
    return Index(&root, d, docs_[d]->uri, resource, "", draft, vocab, error);
  }

  // The node of a document's root (compiles what it reaches).
  bool CompileRoot(uint32_t d, uint32_t* node, std::string* error) {
    const JVal* root = &docs_[d]->root;
    return Compile(root, positions_[pos_of_.at(root)], node, error);
  }

  // After every root: the targets a dynamic reference may reach, the in-place graph's
  // cycles, and which nodes track evaluated members.
  bool Finish(std::string* error) {
    if (out_->uses_dynamic_scope) {
      // The dynamic anchors and recursive roots of every resource evaluation can enter (one
      // with a node compiled) may be targets; compiling them may reach more resources.
      std::vector<bool> done(dynamic_candidates_.size(), false);
      for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < dynamic_candidates_.size(); ++i) {
          const auto [value, resource, name] = dynamic_candidates_[i];
          if (done[i] || !touched_.count(resource)) continue;
          done[i] = more = true;
          uint32_t node;
          if (!Compile(value, positions_[pos_of_.at(value)], &node, error)) return false;
          Resource& r = out_->resources[resource];
          if (name == kRecursiveAnchor)
            r.root = node;
          else
            r.dynamic_anchors.emplace_back(name, node);
        }
      }
    }
    if (!CheckCycles(error)) return false;
    MarkTracking();
    if (!out_->uses_dynamic_scope) {
      ForwardRefs();
      MergeBundles();
    }
    for (uint32_t i = 0; i < out_->nodes.size(); ++i) {
      std::vector<std::string> names;
      std::vector<uint32_t> test;
      // (A branch whose type cannot take an object is not made on one anyway.)
      const Node& n = out_->nodes[i];
      out_->nodes[i].name_judged = n.kind != Node::kFalse &&
                                   (!(n.has & Node::kType) || (n.types & kTypeObject)) &&
                                   NameTest(i, &names, &test);
    }
    for (Node& n : out_->nodes) NameTests(&n);
    if (!out_->uses_dynamic_scope)
      for (uint32_t i = 0; i < out_->nodes.size(); ++i) CondParts(i);
    for (uint32_t i = 0; i < out_->nodes.size(); ++i) {
      BuildMembers(i);
      OnePattern(i);
      WorkFlags(&out_->nodes[i]);
      SoleMembers(i);
    }
    for (Node& n : out_->nodes) UnionPlain(&n);
    for (Node& n : out_->nodes) EndTable(&n);
    if (!out_->uses_dynamic_scope) {
      for (Node& n : out_->nodes) DirectFlags(&n);
      for (Node& n : out_->nodes) Leaves(&n);
      for (Node& n : out_->nodes) ArrayLeaf(&n);
    }
    if (!out_->uses_dynamic_scope) {
      for (uint32_t i = 0; i < out_->nodes.size(); ++i) {
        for (int committed = 0; committed < 2; ++committed) {
          ObjectPlan plan;
          // (One evaluation alone gains nothing from a plan.)
          if (!Plan(i, kNone, kAll, 0, committed != 0, &plan) || plan.evals.size() < 2) continue;
          out_->nodes[i].object_plan[committed] = AddPlan(std::move(plan));
        }
      }
      for (uint32_t i = 0; i < out_->nodes.size(); ++i) MakeChoice(i);
      MakeCondMembers();
      for (Node& n : out_->nodes) ShortMap(&n);
    }
    for (const Node& n : out_->nodes) {
      out_->bytes += sizeof(Node) + n.location_size + n.watched.size() * 32 +
                     n.member_table.size() * (sizeof(Node::Member) + sizeof(std::string_view));
      if (n.rare_) {
        const NodeRare& r = *n.rare_;
        out_->bytes += sizeof(NodeRare) + r.const_value.size() + r.dependent_required.size() * 56 +
                       r.dependent_schemas.size() * 40;
        for (const auto& e : r.enum_values) out_->bytes += e.size() + 32;
      }
      for (const auto& t : n.texts) out_->bytes += t.size() + 32;
      for (const Node::NameTest& t : n.name_tests)
        out_->bytes += sizeof(Node::NameTest) + t.program.size() * 4;
    }
    for (const std::string& name : out_->long_names) out_->bytes += 32 + name.size();
    for (const ObjectPlan& p : out_->plans)
      out_->bytes += sizeof(ObjectPlan) + p.evals.size() * sizeof(EvalHead);
    for (const UnionChoice& c : out_->choices) {
      out_->bytes += sizeof(UnionChoice) + c.value_name.size();
      for (const auto* t : {&c.names, &c.values}) {
        out_->bytes += t->slots.size() * 2;
        for (const auto& e : t->entries) out_->bytes += sizeof(e) + e.text.size();
      }
    }
    for (const auto& re : out_->regexes)
      if (re) out_->bytes += 64 + 16 * re->ProgramSize();
    for (const auto& dfa : out_->dfas)
      if (dfa) out_->bytes += dfa->bytes();
    if (out_->bytes > options_.max_schema_bytes) {
      *error = "the compiled schemas take " + std::to_string(out_->bytes) +
               " bytes, more than max_schema_bytes " + std::to_string(options_.max_schema_bytes);
      return false;
    }
    return true;
  }

  void set_default_draft(Draft d) { default_draft_ = d; }
  const Doc& doc(uint32_t d) const { return *docs_[d]; }
  size_t doc_count() const { return docs_.size(); }
  // Room for a node at every subschema the documents' indexing found (a node is made once
  // per value compiled, and most compiled values are such subschemas): the node table
  // then grows in no copy while compiling (the load's shrink_to_fit still copies it once
  // when some indexed subschemas are never compiled). (Grown
  // by doubling, twitter's nodes of 512 bytes took 53 more fresh heap pages to load, each
  // first touch a page fault: about 11 us on the benchmark machine.) Also room for the
  // member copies a conditional may take (MakeCondMembers), two per property of an if /
  // then / else (a member's copy and its kCondCount copy): twitter's five took the table
  // past its room, 42 more faults. (NestedHost's copies, a host and one per property of the
  // member's map, are not counted: a schema with such members may grow the table once
  // while loading, a copy and no more.)
  void ReserveNodes() {
    size_t cond = 0;
    for (const Pos& p : positions_) {
      if (p.value == nullptr) continue;
      for (std::string_view k : {"if", "then", "else"}) {
        const JVal* b = p.value->Get(k);
        const JVal* props = b != nullptr ? b->Get("properties") : nullptr;
        if (props != nullptr && props->kind == JVal::kObject) cond += props->members.size();
      }
    }
    out_->nodes.reserve(positions_.size() + 2 * cond);
    sources_.reserve(positions_.size());
  }

  // The $id of a document's root, resolved.
  std::string RootId(uint32_t d) const {
    const JVal* root = &docs_[d]->root;
    auto it = pos_of_.find(root);
    if (it == pos_of_.end()) return {};
    return std::string(StrippedUri(positions_[it->second].base));
  }

 private:
  static std::string StrippedUri(std::string_view uri) {
    return std::string(StripEmptyFragment(uri));
  }

  bool Fail(uint32_t d, const std::string& pointer, const std::string& what, std::string* error) {
    *error =
        out_->documents[d] + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + what;
    return false;
  }
  bool Fail(const Pos& p, const std::string& keyword, const std::string& what, std::string* error) {
    return Fail(p.doc, p.pointer + (keyword.empty() ? "" : "/" + keyword), what, error);
  }

  uint32_t NewResource(const std::string& uri) {
    Resource r;
    r.uri = StrippedUri(uri);
    out_->resources.push_back(std::move(r));
    return static_cast<uint32_t>(out_->resources.size() - 1);
  }
  uint32_t NewPos(Pos p, const JVal* v) {
    p.value = v;
    positions_.push_back(std::move(p));
    const uint32_t i = static_cast<uint32_t>(positions_.size() - 1);
    pos_of_[v] = i;
    return i;
  }

  // $schema: a draft's URI, or a loaded metaschema (its draft and $vocabulary).
  bool MetaDraft(const std::string& uri, Draft* draft, uint8_t* vocab, std::string* error) {
    if (DraftOfUri(uri, draft)) return true;
    const std::string key = StrippedUri(uri);
    auto it = uri_to_pos_.find(key);
    if (it == uri_to_pos_.end() && LoadEmbedded(key, error)) it = uri_to_pos_.find(key);
    if (it == uri_to_pos_.end()) {
      *error = "$schema \"" + uri + "\" is no draft this build knows and no loaded metaschema";
      return false;
    }
    const Pos& meta = positions_[it->second];
    *draft = meta.draft;
    *vocab = kVocabAll;
    const JVal* mroot = ValueAt(it->second);
    if (const JVal* v = mroot ? mroot->Get("$vocabulary") : nullptr;
        v && v->kind == JVal::kObject) {
      *vocab = 0;
      for (const auto& [name, on] : v->members) {
        std::string_view n = name;
        if (n.ends_with("/vocab/applicator")) *vocab |= kVocabApplicator;
        if (n.ends_with("/vocab/validation")) *vocab |= kVocabValidation;
        if (n.ends_with("/vocab/unevaluated")) *vocab |= kVocabUnevaluated;
        if (n.ends_with("/vocab/format-assertion")) *vocab |= kVocabFormatAssertion;
      }
      if (*draft == Draft::k2019) *vocab |= kVocabUnevaluated;  // part of the applicator there
    }
    return true;
  }

  const JVal* ValueAt(uint32_t pos) const { return positions_[pos].value; }

  bool LoadEmbedded(const std::string& uri, std::string* error) {
    const std::string_view text = EmbeddedMetaschema(uri);
    if (text.empty() || loaded_embedded_.count(uri)) return false;
    loaded_embedded_.insert(uri);
    Doc doc;
    doc.uri = uri;
    doc.file = uri;
    std::string parse_error;
    if (!ParseJson(text, &doc.root, &parse_error)) {
      *error = uri + ": " + parse_error;
      return false;
    }
    const Draft saved = default_draft_;
    Draft draft;
    if (DraftOfUri(uri, &draft)) default_draft_ = draft;
    const bool ok = AddDocument(std::move(doc), error);
    default_draft_ = saved;
    return ok;
  }

  // Registers every subschema of a document: its position, $id, anchors.
  bool Index(const JVal* v, uint32_t d, std::string base, uint32_t resource,
             const std::string& pointer, Draft draft, uint8_t vocab, std::string* error) {
    if (v->kind != JVal::kObject) {
      if (!pos_of_.count(v)) NewPos(Pos{d, base, resource, pointer, draft, vocab}, v);
      return true;
    }
    if (const JVal* s = v->Get("$schema"); !pointer.empty() && s && s->kind == JVal::kString &&
                                           v->Get(draft == Draft::k4 ? "id" : "$id")) {
      // an embedded resource in another draft
      if (!MetaDraft(s->s, &draft, &vocab, error))
        return Fail(d, pointer + "/$schema", *error, error);
    }
    const char* id_key = draft == Draft::k4 ? "id" : "$id";
    const JVal* id = v->Get(id_key);
    const bool ref_hides_siblings = draft <= Draft::k7 && v->Get("$ref") != nullptr;
    bool new_base = false;
    if (id && id->kind == JVal::kString && !ref_hides_siblings) {
      if (draft <= Draft::k7 && !id->s.empty() && id->s[0] == '#') {
        anchor_pos_[StrippedUri(WithoutFragment(base)) + id->s] = v;
      } else {
        const std::string resolved = ResolveUri(base, id->s);
        bool has_fragment = false;
        const std::string_view fragment = FragmentOf(resolved, &has_fragment);
        if (draft >= Draft::k2019 && has_fragment && !fragment.empty())
          return Fail(d, pointer + "/$id", "$id may not have a fragment", error);
        base = std::string(WithoutFragment(resolved));
        if (!pointer.empty()) resource = NewResource(base);
        if (has_fragment && !fragment.empty()) anchor_pos_[base + "#" + std::string(fragment)] = v;
        new_base = true;
      }
    }
    uint32_t pos;
    if (auto it = pos_of_.find(v); it != pos_of_.end()) {
      pos = it->second;
      positions_[pos].base = base;
      positions_[pos].resource = resource;
      positions_[pos].draft = draft;
      positions_[pos].vocab = vocab;
    } else {
      pos = NewPos(Pos{d, base, resource, pointer, draft, vocab}, v);
    }
    if (new_base) uri_to_pos_[base] = pos;
    if (pointer.empty()) out_->resources[resource].uri = StrippedUri(base);
    if (draft >= Draft::k2019) {
      if (const JVal* a = v->Get("$anchor"); a && a->kind == JVal::kString)
        anchor_pos_[base + "#" + a->s] = v;
    }
    if (draft == Draft::k2020) {
      if (const JVal* a = v->Get("$dynamicAnchor"); a && a->kind == JVal::kString) {
        anchor_pos_[base + "#" + a->s] = v;
        dynamic_anchor_pos_.insert(v);
        dynamic_candidates_.push_back({v, resource, AnchorName(a->s)});
      }
    }
    if (draft == Draft::k2019) {
      if (const JVal* a = v->Get("$recursiveAnchor"); a && a->kind == JVal::kBool && a->b) {
        out_->resources[resource].recursive_anchor = true;
        dynamic_candidates_.push_back({v, resource, kRecursiveAnchor});
      }
    }
    auto sub = [&](const JVal* child, const std::string& p) {
      return Index(child, d, base, resource, p, draft, vocab, error);
    };
    for (const auto& [key, child] : v->members) {
      const SubschemaKeyword kind = SubschemaKeywordOf(key);
      if (kind == SubschemaKeyword::kNone) continue;
      const std::string p = pointer + "/" + EscapePointerToken(key);
      const bool schema_map = kind == SubschemaKeyword::kMap;
      const bool schema_array = kind == SubschemaKeyword::kArray ||
                                (kind == SubschemaKeyword::kItems && child.kind == JVal::kArray);
      const bool one_schema = kind == SubschemaKeyword::kOne || kind == SubschemaKeyword::kItems;
      if (schema_map && child.kind == JVal::kObject) {
        for (const auto& [name, s] : child.members) {
          if (s.kind != JVal::kObject && s.kind != JVal::kBool) continue;
          if (!sub(&s, p + "/" + EscapePointerToken(name))) return false;
        }
      } else if (schema_array && child.kind == JVal::kArray) {
        for (size_t i = 0; i < child.items.size(); ++i)
          if (!sub(&child.items[i], p + "/" + std::to_string(i))) return false;
      } else if (one_schema && (child.kind == JVal::kObject || child.kind == JVal::kBool)) {
        if (!sub(&child, p)) return false;
      }
    }
    return true;
  }

  uint32_t AnchorName(const std::string& name) {
    for (size_t i = 0; i < out_->anchor_names.size(); ++i)
      if (out_->anchor_names[i] == name) return static_cast<uint32_t>(i);
    out_->anchor_names.push_back(name);
    return static_cast<uint32_t>(out_->anchor_names.size() - 1);
  }

  // The value a reference names, and where it sits.
  bool Lookup(const std::string& uri, const JVal** value, Pos* pos, std::string* error) {
    bool has_fragment = false;
    const std::string abs = StrippedUri(WithoutFragment(uri));
    const std::string_view raw_fragment = FragmentOf(uri, &has_fragment);
    std::string fragment;
    if (!PercentDecode(raw_fragment, &fragment)) {
      *error = "$ref \"" + uri + "\": malformed percent-encoding";
      return false;
    }
    if (!fragment.empty() && fragment[0] != '/') {
      auto it = anchor_pos_.find(abs + "#" + fragment);
      if (it == anchor_pos_.end() && !uri_to_pos_.count(abs) && LoadEmbedded(abs, error))
        it = anchor_pos_.find(abs + "#" + fragment);
      if (it == anchor_pos_.end()) {
        *error = "$ref \"" + uri + "\" resolves nowhere";
        return false;
      }
      *value = it->second;
      *pos = positions_[pos_of_.at(*value)];
      return true;
    }
    auto it = uri_to_pos_.find(abs);
    if (it == uri_to_pos_.end() && LoadEmbedded(abs, error)) it = uri_to_pos_.find(abs);
    if (it == uri_to_pos_.end() || it->second == kNone) {
      *error = "$ref \"" + uri + "\" resolves nowhere (nothing is fetched)";
      return false;
    }
    const JVal* v = ValueAt(it->second);
    Pos at = positions_[it->second];
    std::vector<std::string> tokens;
    if (!SplitPointer(fragment, &tokens)) {
      *error = "$ref \"" + uri + "\": the fragment is not a JSON Pointer";
      return false;
    }
    for (const std::string& t : tokens) {
      const JVal* next = nullptr;
      if (v->kind == JVal::kObject) {
        next = v->Get(t);
      } else if (v->kind == JVal::kArray) {
        char* end = nullptr;
        const unsigned long i = std::strtoul(t.c_str(), &end, 10);
        if (!t.empty() && *end == '\0' && i < v->items.size()) next = &v->items[i];
      }
      if (next == nullptr) {
        *error = "$ref \"" + uri + "\" resolves nowhere";
        return false;
      }
      v = next;
      if (auto p = pos_of_.find(v); p != pos_of_.end()) {
        at = positions_[p->second];
      } else {
        at.pointer += "/" + EscapePointerToken(t);
      }
    }
    *value = v;
    *pos = at;
    return true;
  }

  bool CompileRef(const JVal& ref_value, const Pos& p, const char* keyword, uint32_t* target,
                  std::string* resolved_uri, std::string* error) {
    if (ref_value.kind != JVal::kString) return Fail(p, keyword, "must be a string", error);
    *resolved_uri = ResolveUri(p.base, ref_value.s);
    const JVal* v = nullptr;
    Pos at;
    std::string why;
    if (!Lookup(*resolved_uri, &v, &at, &why)) return Fail(p, keyword, why, error);
    return Compile(v, at, target, error);
  }

  // Room for one more node. The nodes are reserved for about as many as the schemas
  // make; past that, an eighth more: doubling would leave up to half of them spare, which
  // Load would copy all the nodes to give back.
  static void RoomForNode(std::vector<Node>& nodes) {
    if (nodes.size() == nodes.capacity()) nodes.reserve(nodes.size() + nodes.size() / 8 + 1);
  }

  bool Compile(const JVal* v, const Pos& given, uint32_t* node, std::string* error) {
    if (auto it = memo_.find(v); it != memo_.end()) return *node = it->second, true;
    Pos p = given;
    if (auto it = pos_of_.find(v); it != pos_of_.end()) p = positions_[it->second];
    const uint32_t index = static_cast<uint32_t>(out_->nodes.size());
    RoomForNode(out_->nodes);
    out_->nodes.emplace_back();
    sources_.emplace_back();
    memo_[v] = index;
    *node = index;
    touched_.insert(p.resource);
    Node n;
    n.draft = p.draft;
    n.document = p.doc;
    n.location_at = static_cast<uint32_t>(out_->locations.size());
    n.location_size = static_cast<uint32_t>(p.pointer.size());
    out_->locations += p.pointer;
    n.resource = p.resource;
    if (v->kind == JVal::kBool) {
      n.kind = v->b ? Node::kTrue : Node::kFalse;
      out_->nodes[index] = std::move(n);
      return true;
    }
    if (v->kind != JVal::kObject) return Fail(p, "", "a schema is an object or a boolean", error);
    Source src;
    if (!CompileKeywords(*v, p, &n, &src, error)) return false;
    sources_[index] = std::move(src);
    const bool empty = n.has == 0 && n.types == kAllTypes && n.pattern == kNone &&
                       n.min_length == 0 && n.max_length == kNoLimit && !n.has_object_work &&
                       !n.has_array_work && !n.has_in_place;
    if (empty) n.kind = Node::kTrue;
    out_->nodes[index] = std::move(n);
    return true;
  }

  bool Child(const JVal& v, const Pos& p, const std::string& keyword, uint32_t* node,
             std::string* error) {
    Pos at = p;
    at.pointer += "/" + keyword;
    return Compile(&v, at, node, error);
  }

  bool CompileKeywords(const JVal& v, const Pos& p, Node* n, Source* src, std::string* error) {
    const Draft draft = p.draft;
    const bool validation = p.vocab & kVocabValidation;
    const bool applicator = p.vocab & kVocabApplicator;
    auto num = [&](const char* key, double* out, uint32_t bit) -> bool {
      const JVal* k = v.Get(key);
      if (!k || !validation) return true;
      if (!k->IsNumber()) {
        if (draft == Draft::k4 && k->kind == JVal::kBool) return true;
        return Fail(p, key, "must be a number", error);
      }
      *out = k->Number();
      n->has |= bit;
      return true;
    };
    auto count = [&](const char* key, uint64_t* out) -> bool {
      const JVal* k = v.Get(key);
      if (!k || !validation) return true;
      if (!k->Count(out)) return Fail(p, key, "must be a non-negative integer", error);
      return true;
    };
    // $ref: in drafts 4 to 7 its siblings are ignored.
    if (const JVal* ref = v.Get("$ref")) {
      std::string uri;
      if (!CompileRef(*ref, p, "$ref", &n->ref, &uri, error)) return false;
      n->has_in_place = true;
      if (draft <= Draft::k7) return true;
    }
    if (const JVal* ref = v.Get("$dynamicRef"); ref && draft == Draft::k2020) {
      std::string uri;
      if (!CompileRef(*ref, p, "$dynamicRef", &n->dynamic_ref, &uri, error)) return false;
      n->has_in_place = true;
      bool has_fragment = false;
      const std::string_view fragment = FragmentOf(uri, &has_fragment);
      const JVal* target = nullptr;
      Pos at;
      std::string why;
      if (!fragment.empty() && fragment[0] != '/' && Lookup(uri, &target, &at, &why) &&
          dynamic_anchor_pos_.count(target)) {
        const JVal* a = target->Get("$dynamicAnchor");
        if (a && a->kind == JVal::kString && a->s == fragment) {
          n->dynamic_name = AnchorName(a->s);
          out_->uses_dynamic_scope = true;
        }
      }
    }
    if (const JVal* ref = v.Get("$recursiveRef"); ref && draft == Draft::k2019) {
      std::string uri;
      if (!CompileRef(*ref, p, "$recursiveRef", &n->dynamic_ref, &uri, error)) return false;
      n->has_in_place = true;
      const JVal* target = nullptr;
      Pos at;
      std::string why;
      if (Lookup(uri, &target, &at, &why)) {
        const JVal* a = target->Get("$recursiveAnchor");
        if (a && a->kind == JVal::kBool && a->b) {
          n->dynamic_name = kRecursiveAnchor;
          out_->uses_dynamic_scope = true;
        }
      }
    }
    if (validation) {
      if (const JVal* t = v.Get("type")) {
        auto bit = [](const std::string& s) -> uint8_t {
          if (s == "null") return kTypeNull;
          if (s == "boolean") return kTypeBoolean;
          if (s == "object") return kTypeObject;
          if (s == "array") return kTypeArray;
          if (s == "number") return kTypeNumber;
          if (s == "string") return kTypeString;
          if (s == "integer") return kTypeInteger;
          return 0;
        };
        uint8_t types = 0;
        if (t->kind == JVal::kString) {
          types = bit(t->s);
          if (!types) return Fail(p, "type", "unknown type \"" + t->s + "\"", error);
        } else if (t->kind == JVal::kArray) {
          for (const JVal& e : t->items) {
            const uint8_t b = e.kind == JVal::kString ? bit(e.s) : 0;
            if (!b) return Fail(p, "type", "unknown type", error);
            types |= b;
          }
        } else {
          return Fail(p, "type", "must be a string or an array", error);
        }
        n->types = types;
        n->has |= Node::kType;
      }
      // Node::texts: the values of an enum of strings alone, or of a string const alone.
      bool all_texts = true;
      if (const JVal* e = v.Get("enum")) {
        if (e->kind != JVal::kArray) return Fail(p, "enum", "must be an array", error);
        for (const JVal& item : e->items) {
          std::string c;
          Canonicalize(item, &c);
          n->rare_mut().enum_values.push_back(std::move(c));
          all_texts &= item.kind == JVal::kString;
          if (all_texts) n->texts.push_back(item.s);
        }
        n->has |= Node::kEnum;
      }
      if (const JVal* c = v.Get("const"); c && draft >= Draft::k6) {
        Canonicalize(*c, &n->rare_mut().const_value);
        n->has |= Node::kConst;
        all_texts = c->kind == JVal::kString && !(n->has & Node::kEnum);
        if (all_texts) n->texts.push_back(c->s);
      }
      n->texts_only = (n->has & (Node::kConst | Node::kEnum)) != 0 && all_texts;
      if (!n->texts_only) n->texts.clear();
      if (!num("minimum", &n->minimum, Node::kMinimum) ||
          !num("maximum", &n->maximum, Node::kMaximum) ||
          !num("multipleOf", &n->multiple_of, Node::kMultipleOf))
        return false;
      if (n->has & Node::kMultipleOf) {
        if (!(n->multiple_of > 0)) return Fail(p, "multipleOf", "must be above 0", error);
        n->integer_multiple =
            n->multiple_of == std::floor(n->multiple_of) && n->multiple_of < 9007199254740992.0;
      }
      if (draft == Draft::k4) {
        const JVal* xmin = v.Get("exclusiveMinimum");
        const JVal* xmax = v.Get("exclusiveMaximum");
        if (xmin && xmin->kind == JVal::kBool && xmin->b && (n->has & Node::kMinimum)) {
          n->has = (n->has & ~Node::kMinimum) | Node::kExclusiveMinimum;
          n->exclusive_minimum = n->minimum;
        }
        if (xmax && xmax->kind == JVal::kBool && xmax->b && (n->has & Node::kMaximum)) {
          n->has = (n->has & ~Node::kMaximum) | Node::kExclusiveMaximum;
          n->exclusive_maximum = n->maximum;
        }
      } else if (!num("exclusiveMinimum", &n->exclusive_minimum, Node::kExclusiveMinimum) ||
                 !num("exclusiveMaximum", &n->exclusive_maximum, Node::kExclusiveMaximum)) {
        return false;
      }
      if (!count("minLength", &n->min_length) || !count("maxLength", &n->max_length) ||
          !count("minItems", &n->min_items) || !count("maxItems", &n->max_items) ||
          !count("minProperties", &n->min_properties) ||
          !count("maxProperties", &n->max_properties))
        return false;
      if (const JVal* u = v.Get("uniqueItems"); u && u->kind == JVal::kBool && u->b)
        n->has |= Node::kUniqueItems;
      if (const JVal* r = v.Get("required"); r && r->kind == JVal::kArray) {
        for (const JVal& name : r->items) {
          if (name.kind != JVal::kString) return Fail(p, "required", "must hold strings", error);
          src->required.push_back(name.s);
        }
      }
      if (const JVal* dr = v.Get("dependentRequired"); dr && draft >= Draft::k2019) {
        if (dr->kind != JVal::kObject)
          return Fail(p, "dependentRequired", "must be an object", error);
        for (const auto& [name, list] : dr->members) {
          DependentRequired d{name, {}};
          for (const JVal& s : list.items)
            if (s.kind == JVal::kString) d.required.push_back(s.s);
          n->rare_mut().dependent_required.push_back(std::move(d));
        }
      }
      if (draft >= Draft::k2019) {
        if (!count("minContains", &n->min_contains) || !count("maxContains", &n->max_contains))
          return false;
      }
    }
    if (const JVal* pat = v.Get("pattern"); pat && validation) {
      if (pat->kind != JVal::kString) return Fail(p, "pattern", "must be a string", error);
      if (!NewRegex(pat->s, p, "pattern", &n->pattern, error)) return false;
    }
    if (const JVal* f = v.Get("format"); f && f->kind == JVal::kString) {
      n->format = FormatId(f->s, draft);
      if (n->format) n->has |= Node::kFormat;
      n->format_asserted = (p.vocab & kVocabFormatAssertion) != 0;
      if (n->format) n->rare_mut().format_name = f->s;
    }
    if (draft == Draft::k7) {
      const JVal* enc = v.Get("contentEncoding");
      const JVal* media = v.Get("contentMediaType");
      n->content_base64 = enc && enc->kind == JVal::kString && enc->s == "base64";
      n->content_json = media && media->kind == JVal::kString && media->s == "application/json";
      if (n->content_base64 || n->content_json) n->has |= Node::kContent;
    }
    if (applicator) {
      auto list = [&](const char* key, std::vector<uint32_t>* out) -> bool {
        const JVal* a = v.Get(key);
        if (!a) return true;
        if (a->kind != JVal::kArray || a->items.empty())
          return Fail(p, key, "must be a non-empty array of schemas", error);
        for (size_t i = 0; i < a->items.size(); ++i) {
          uint32_t c;
          if (!Child(a->items[i], p, std::string(key) + "/" + std::to_string(i), &c, error))
            return false;
          out->push_back(c);
        }
        return true;
      };
      auto one = [&](const char* key, uint32_t* out) -> bool {
        const JVal* s = v.Get(key);
        if (!s) return true;
        return Child(*s, p, key, out, error);
      };
      if (!list("allOf", &n->all_of) || !list("anyOf", &n->any_of) || !list("oneOf", &n->one_of) ||
          !one("not", &n->not_))
        return false;
      if (draft >= Draft::k7) {
        if (!one("if", &n->if_)) return false;
        if (n->if_ != kNone) {
          if (!one("then", &n->then_) || !one("else", &n->else_)) return false;
        }
      }
      // Arrays.
      if (draft == Draft::k2020) {
        if (const JVal* pi = v.Get("prefixItems")) {
          if (pi->kind != JVal::kArray) return Fail(p, "prefixItems", "must be an array", error);
          if (!list("prefixItems", &n->prefix_items)) return false;
        }
        if (!one("items", &n->items)) return false;
      } else if (const JVal* items = v.Get("items")) {
        if (items->kind == JVal::kArray) {
          for (size_t i = 0; i < items->items.size(); ++i) {
            uint32_t c;
            if (!Child(items->items[i], p, "items/" + std::to_string(i), &c, error)) return false;
            n->prefix_items.push_back(c);
          }
          if (!one("additionalItems", &n->items)) return false;
        } else if (!one("items", &n->items)) {
          return false;
        }
      }
      if (draft >= Draft::k6) {
        if (!one("contains", &n->contains) || !one("propertyNames", &n->property_names))
          return false;
        if (n->contains != kNone) n->has |= Node::kContains;
      }
      // Objects.
      if (const JVal* props = v.Get("properties")) {
        if (props->kind != JVal::kObject) return Fail(p, "properties", "must be an object", error);
        for (const auto& [name, s] : props->members) {
          uint32_t c;
          if (!Child(s, p, "properties/" + EscapePointerToken(name), &c, error)) return false;
          src->properties.push_back(Property{name, c});
        }
      }
      if (const JVal* pp = v.Get("patternProperties")) {
        if (pp->kind != JVal::kObject)
          return Fail(p, "patternProperties", "must be an object", error);
        for (const auto& [pattern, s] : pp->members) {
          const std::string key = "patternProperties/" + EscapePointerToken(pattern);
          PatternProperty prop;
          if (!NewRegex(pattern, p, key, &prop.regex, error)) return false;
          if (!Child(s, p, key, &prop.node, error)) return false;
          n->rare_mut().pattern_properties.push_back(prop);
        }
      }
      if (!one("additionalProperties", &n->additional_properties)) return false;
      // `dependencies` (drafts 4 to 7) is also read in 2019-09 and 2020-12, as the
      // specifications suggest for compatibility.
      for (const char* deps_key : {"dependentSchemas", "dependencies"}) {
        if (draft < Draft::k2019 && std::string_view(deps_key) == "dependentSchemas") continue;
        const JVal* ds = v.Get(deps_key);
        if (ds) {
          if (ds->kind != JVal::kObject) return Fail(p, deps_key, "must be an object", error);
          for (const auto& [name, s] : ds->members) {
            if (s.kind == JVal::kArray) {  // draft 4 to 7: a list of required names
              DependentRequired d{name, {}};
              for (const JVal& r : s.items)
                if (r.kind == JVal::kString) d.required.push_back(r.s);
              n->rare_mut().dependent_required.push_back(std::move(d));
              continue;
            }
            uint32_t c;
            if (!Child(s, p, std::string(deps_key) + "/" + EscapePointerToken(name), &c, error))
              return false;
            n->rare_mut().dependent_schemas.push_back(DependentSchema{name, c});
          }
        }
      }
    }
    if (draft >= Draft::k2019 && (p.vocab & (kVocabUnevaluated | kVocabApplicator))) {
      auto one = [&](const char* key, uint32_t* out) -> bool {
        const JVal* s = v.Get(key);
        if (!s) return true;
        return Child(*s, p, key, out, error);
      };
      if (!one("unevaluatedItems", &n->unevaluated_items) ||
          !one("unevaluatedProperties", &n->unevaluated_properties))
        return false;
    }
    Watch(n, *src);
    n->has_in_place = n->has_in_place || AppliesInPlace(*n);
    n->has_object_work = !src->properties.empty() || !n->rare().pattern_properties.empty() ||
                         n->additional_properties != kNone || n->property_names != kNone ||
                         !src->required.empty() || !n->rare().dependent_required.empty() ||
                         !n->rare().dependent_schemas.empty() || n->min_properties != 0 ||
                         n->max_properties != kNoLimit || n->unevaluated_properties != kNone;
    n->has_array_work = !n->prefix_items.empty() || n->items != kNone || n->contains != kNone ||
                        n->min_items != 0 || n->max_items != kNoLimit ||
                        (n->has & Node::kUniqueItems) || n->unevaluated_items != kNone;
    return true;
  }

  static void Watch(Node* n, const Source& src) {
    std::vector<std::string>& w = n->watched;
    for (const auto& r : src.required) w.push_back(r);
    for (const auto& d : n->rare().dependent_required) {
      w.push_back(d.name);
      for (const auto& r : d.required) w.push_back(r);
    }
    for (const auto& d : n->rare().dependent_schemas) w.push_back(d.name);
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    auto index = [&](const std::string& name) {
      return static_cast<uint32_t>(std::lower_bound(w.begin(), w.end(), name) - w.begin());
    };
    for (const auto& r : src.required) n->required_w.push_back(index(r));
    for (uint32_t r : n->required_w) {
      if (r >= 64) {
        n->required_mask = 0;
        break;
      }
      n->required_mask |= uint64_t{1} << r;
    }
    if (!n->rare_) return;
    NodeRare& rare = *n->rare_;
    for (const auto& d : rare.dependent_required) {
      std::vector<uint32_t> req;
      for (const auto& r : d.required) req.push_back(index(r));
      rare.dependent_required_w.emplace_back(index(d.name), std::move(req));
    }
    for (const auto& d : rare.dependent_schemas) rare.dependent_schemas_w.push_back(index(d.name));
  }

  // Appends node c's verdict on an object as a NameOp program over `names` (added to as
  // needed); false when a name test cannot say it: a keyword that looks at members' values
  // or at the object whole (properties, minProperties, const, ...), or evaluations that
  // record what they evaluated (unevaluated*), or a program past kMaxNameTest. In-place
  // cycles were refused before, so the recursion ends.
  bool NameTest(uint32_t c, std::vector<std::string>* names, std::vector<uint32_t>* out) const {
    if (out->size() > kMaxNameTest) return false;
    const Node& n = out_->nodes[c];
    if (n.kind != Node::kSchema) {
      out->push_back(NameWord(kNameConst, n.kind == Node::kTrue));
      return true;
    }
    if (n.tracks_evaluated || (n.has & (Node::kConst | Node::kEnum)) ||
        !sources_[c].properties.empty() || !n.rare().pattern_properties.empty() ||
        n.additional_properties != kNone || n.property_names != kNone || n.min_properties != 0 ||
        n.max_properties != kNoLimit || n.dynamic_ref != kNone)
      return false;
    if ((n.has & Node::kType) && !(n.types & kTypeObject)) {
      out->push_back(NameWord(kNameConst, 0));
      return true;
    }
    auto has = [&](const std::string& name) {
      auto it = std::find(names->begin(), names->end(), name);
      if (it == names->end()) it = names->insert(names->end(), name);
      out->push_back(NameWord(kNameHas, static_cast<uint32_t>(it - names->begin())));
    };
    uint32_t terms = 0;  // conjuncts on the stack
    for (const std::string& r : sources_[c].required) has(r), ++terms;
    for (const DependentRequired& d : n.rare().dependent_required) {
      // absent trigger, or every name it asks for
      has(d.name);
      out->push_back(NameWord(kNameNot, 0));
      for (const std::string& r : d.required) has(r);
      out->push_back(NameWord(kNameAll, static_cast<uint32_t>(d.required.size())));
      out->push_back(NameWord(kNameAny, 2));
      ++terms;
    }
    for (const DependentSchema& d : n.rare().dependent_schemas) {
      has(d.name);
      out->push_back(NameWord(kNameNot, 0));
      if (!NameTest(d.node, names, out)) return false;
      out->push_back(NameWord(kNameAny, 2));
      ++terms;
    }
    auto list = [&](const std::vector<uint32_t>& nodes, NameOp op) {
      if (nodes.empty()) return true;
      for (uint32_t x : nodes)
        if (!NameTest(x, names, out)) return false;
      out->push_back(NameWord(op, static_cast<uint32_t>(nodes.size())));
      ++terms;
      return true;
    };
    if (n.ref != kNone) {
      if (!NameTest(n.ref, names, out)) return false;
      ++terms;
    }
    if (!list(n.all_of, kNameAll) || !list(n.any_of, kNameAny) || !list(n.one_of, kNameOne))
      return false;
    if (n.not_ != kNone) {
      if (!NameTest(n.not_, names, out)) return false;
      out->push_back(NameWord(kNameNot, 0));
      ++terms;
    }
    if (n.if_ != kNone) {
      for (uint32_t x : {n.if_, n.then_, n.else_}) {
        if (x == kNone)
          out->push_back(NameWord(kNameConst, 1));
        else if (!NameTest(x, names, out))
          return false;
      }
      out->push_back(NameWord(kNameIf, 0));
      ++terms;
    }
    out->push_back(NameWord(kNameAll, terms));
    return out->size() <= kMaxNameTest;
  }

  // A program that asks for all of some names (ALL of HAS, ALL of one value dropped) or
  // for not all of them, with every name among the first 64, is judged by a mask.
  static void ByMask(Node::NameTest* t) {
    std::vector<uint32_t> ops;
    for (uint32_t w : t->program)
      if (w != NameWord(kNameAll, 1)) ops.push_back(w);
    bool negated = false;
    if (!ops.empty() && ops.back() == NameWord(kNameNot, 0)) {
      negated = true;
      ops.pop_back();
    }
    uint64_t mask = 0;
    size_t names = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      const uint32_t op = ops[i] >> 28, arg = ops[i] & 0x0fffffff;
      if (op == kNameHas && arg < 64) {
        mask |= uint64_t{1} << arg;
        ++names;
      } else if (op == kNameConst && arg == 1 && ops.size() == 1) {
        // true: no names
      } else if (op == kNameAll && i + 1 == ops.size() && arg == names) {
        // all of the names before it
      } else {
        return;
      }
    }
    t->by_mask = true;
    t->negated = negated;
    t->mask = mask;
  }

  // Node::name_tests: the programs of the node's name_judged branches, over its watched
  // names (the names they ask for are appended: the indexes already given stay).
  void NameTests(Node* n) {
    if (n->kind != Node::kSchema) return;
    auto add = [&](uint32_t c) {
      if (c == kNone || !out_->nodes[c].name_judged) return;
      Node::NameTest test;
      NameTest(c, &n->watched, &test.program);
      ByMask(&test);
      n->name_tests.push_back(std::move(test));
    };
    for (uint32_t c : n->any_of) add(c);
    for (uint32_t c : n->one_of) add(c);
    add(n->not_);
    if (n->if_ == kNone) return;
    add(n->if_);
    add(n->then_);
    add(n->else_);
  }

  using Keep = std::function<bool(uint32_t, uint32_t)>;
  // Adds a plan to Compiled::plans with its rest_lengths and rest_bits; its index.
  // ObjectPlan::direct_leaf: [the union, (unions, each the one branch made of the one
  // before,) its one live leaf]: unions with nothing else to judge on a map (PlainUnion),
  // and a leaf a direct frame reads, with nothing in place (or a NodeRare::cond_direct
  // leaf, whose branches the plan makes in place). GeoJSON's geometry member: a union of
  // null and the Geometry union, whose choice of "Point" leaves [member, Geometry, Point].
  // (After DirectFlags: the plans are made after it.)
  uint32_t DirectLeaf(const ObjectPlan& p) const {
    const std::vector<Node>& nodes = out_->nodes;
    const size_t size = p.evals.size();
    if (size < 2 || p.committed_false || p.capture || !PlainUnion(nodes[p.evals[0].node])) return 0;
    uint32_t at = 1;
    while (at + 1 < size && p.evals[at + 1].parent == at && PlainUnion(nodes[p.evals[at].node]))
      ++at;
    for (uint32_t k = 1; k <= at; ++k)
      if (p.evals[k].parent != k - 1 || p.evals[k].subtree_end != size) return 0;
    const Node& l = nodes[p.evals[at].node];
    if (l.kind != Node::kSchema || !l.direct_map ||
        (at + 1 == size ? l.has_in_place : !l.rare().cond_direct))
      return 0;
    return at;
  }
  uint32_t AddPlan(ObjectPlan plan) {
    plan.direct_leaf = DirectLeaf(plan);
    uint64_t lengths = 0, bits = 0;
    bool members_only = true;
    for (size_t k = 1; k < plan.evals.size(); ++k) {
      const uint32_t c = plan.evals[k].node;
      const Node& entry = out_->nodes[c];
      members_only &= (entry.key_work & ~Node::kKeyMembers) == 0;
      if (!(entry.key_work & Node::kKeyMembers)) continue;
      lengths |= entry.member_lengths;
      // (A member table holds the properties and the watched names: BuildMembers.)
      for (const Property& p : sources_[c].properties) bits |= NameBit(p.name);
      for (const std::string& w : entry.watched) bits |= NameBit(w);
    }
    if (members_only) {
      plan.rest_lengths = lengths;
      // The NameBits are kept when they tell one of the first entry's own names (the
      // names an instance is likely to have) from the rest's where the lengths do not.
      bool tells = false;
      auto told = [&](std::string_view name) {
        tells |= (lengths & LengthBit(name.size())) != 0 && !(bits & NameBit(name));
      };
      for (const Property& p : sources_[plan.evals[0].node].properties) told(p.name);
      for (const std::string& w : out_->nodes[plan.evals[0].node].watched) told(w);
      if (tells) plan.rest_bits = bits;
    }
    out_->plans.push_back(std::move(plan));
    return static_cast<uint32_t>(out_->plans.size() - 1);
  }

  // Node::object_plan: the evaluations Validator::CreateEval makes for `node` on an object,
  // made here the same way, in the same order; false past ObjectPlan::kMaxEntries (and
  // with a dynamic reference, whose target depends on the scope: plans are only made
  // without dynamic scope).
  bool Plan(uint32_t node, uint32_t parent, Role role, uint32_t role_index, bool committed,
            ObjectPlan* p, const Keep* keep = nullptr) const {
    if (p->evals.size() >= ObjectPlan::kMaxEntries) return false;
    const uint32_t e = static_cast<uint32_t>(p->evals.size());
    const Node& n = out_->nodes[node];
    const bool tracks = n.tracks_evaluated || (parent != kNone && p->evals[parent].tracks);
    p->evals.push_back(EvalHead{node, parent, e + 1, role_index, role, kMust, true, committed,
                                tracks, false, false, kNone, 0});
    if (n.kind == Node::kFalse) {
      p->evals[e].valid = false;
      p->committed_false |= committed;
    } else if (!committed && (n.has & Node::kType) && !(n.types & kTypeObject)) {
      p->evals[e].valid = false;
    } else if (n.kind == Node::kSchema && n.has_in_place) {
      auto viable = [&](uint32_t c) {
        const Node& b = out_->nodes[c];
        return b.kind != Node::kFalse && (!(b.has & Node::kType) || (b.types & kTypeObject)) &&
               !b.name_judged;
      };
      auto made = [&](uint32_t c) { return !out_->nodes[c].name_judged; };
      if (n.ref != kNone && !Plan(n.ref, e, kAll, 0, committed, p, keep)) return false;
      if (n.dynamic_ref != kNone &&
          (n.dynamic_name != kNone || !Plan(n.dynamic_ref, e, kAll, 0, committed, p, keep)))
        return false;
      for (uint32_t c : n.all_of)
        if (!Plan(c, e, kAll, 0, committed, p, keep)) return false;
      auto kept = [&](uint32_t c) { return keep == nullptr || (*keep)(node, c); };
      size_t viables = 0, branches = 0;
      for (uint32_t c : n.any_of) {
        viables += viable(c);
        if (viable(c) && kept(c) && (++branches, !Plan(c, e, kAny, 0, false, p, keep)))
          return false;
      }
      for (uint32_t c : n.one_of) {
        viables += viable(c);
        if (viable(c) && kept(c) && (++branches, !Plan(c, e, kOne, 0, false, p, keep)))
          return false;
      }
      // (The end table counts every viable branch as made and passed: with none made, an
      // anyOf or oneOf it would pass fails.)
      if (viables > 0 && branches == 0) p->evals[e].no_table = true;
      if (n.not_ != kNone && viable(n.not_) && !Plan(n.not_, e, kNot, 0, false, p, keep))
        return false;
      if (n.if_ != kNone) {
        if (viable(n.if_) && !Plan(n.if_, e, kIf, 0, false, p, keep)) return false;
        if (n.then_ != kNone && made(n.then_) && !Plan(n.then_, e, kThen, 0, false, p, keep))
          return false;
        if (n.else_ != kNone && made(n.else_) && !Plan(n.else_, e, kElse, 0, false, p, keep))
          return false;
      }
      const std::vector<DependentSchema>& deps = n.rare().dependent_schemas;
      for (uint32_t i = 0; i < deps.size(); ++i)
        if (!Plan(deps[i].node, e, kDep, i, false, p, keep)) return false;
    }
    if (CapturesFor(n)) p->capture = true;
    EvalHead& entry = p->evals[e];
    entry.subtree_end = static_cast<uint32_t>(p->evals.size());
    entry.ends = entry.tracks || entry.subtree_end != e + 1 ||
                 (n.kind == Node::kSchema && n.end_object_work);
    return true;
  }

  // A union node for UnionChoice: one oneOf or anyOf, and no other keyword with work on
  // an object (a type aside), no names watched, nothing tracked.
  bool Union(const Node& n) const {
    return n.kind == Node::kSchema && n.one_of.empty() != n.any_of.empty() && n.ref == kNone &&
           n.dynamic_ref == kNone && n.all_of.empty() && n.not_ == kNone && n.if_ == kNone &&
           (n.has & ~Node::kType) == 0 && n.key_work == 0 && n.watched.empty() &&
           n.min_properties == 0 && n.max_properties == kNoLimit && !n.tracks_evaluated &&
           n.rare().dependent_schemas.empty() && n.rare().dependent_required.empty() &&
           n.name_tests.empty();
  }
  // Node's choice (UnionChoice) for node i when it is a union whose leaves a first name or
  // its value can tell apart, with its plans.
  void MakeChoice(uint32_t i) {
    const Node& u = out_->nodes[i];
    if (!Union(u) || u.object_plan[0] == kNone || u.object_plan[1] == kNone ||
        out_->plans[u.object_plan[0]].capture || out_->plans[u.object_plan[1]].capture)
      return;
    // The leaves, each a bit, and under each branch (u, c) of a union the leaves below it.
    std::vector<uint32_t> leaves;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> under;
    bool ok = true;
    std::function<uint64_t(uint32_t, int)> walk = [&](uint32_t x, int depth) -> uint64_t {
      const Node& n = out_->nodes[x];
      if (!Union(n)) {
        auto it = std::find(leaves.begin(), leaves.end(), x);
        if (it != leaves.end()) return uint64_t{1} << (it - leaves.begin());
        if (leaves.size() == 64) return ok = false, 0;
        leaves.push_back(x);
        return uint64_t{1} << (leaves.size() - 1);
      }
      if (depth > 8) return ok = false, 0;
      uint64_t mask = 0;
      for (uint32_t c : n.one_of.empty() ? n.any_of : n.one_of) {
        const uint64_t m = walk(c, depth + 1);
        under[{x, c}] |= m;
        mask |= m;
      }
      return mask;
    };
    UnionChoice choice;
    choice.all = walk(i, 0);
    if (!ok || leaves.empty()) return;
    // Closed leaves and their names; the value name: the one most leaves require and give
    // a const or enum of strings alone.
    std::map<std::string, uint64_t> names;
    std::map<std::string, uint64_t> candidates;
    for (size_t k = 0; k < leaves.size(); ++k) {
      const Node& leaf = out_->nodes[leaves[k]];
      if (leaf.kind != Node::kSchema) continue;
      const uint64_t bit = uint64_t{1} << k;
      if (leaf.additional_properties != kNone &&
          out_->nodes[leaf.additional_properties].kind == Node::kFalse &&
          leaf.rare().pattern_properties.empty()) {
        choice.closed |= bit;
        for (const Property& p : sources_[leaves[k]].properties) names[p.name] |= bit;
      }
      for (const Property& p : sources_[leaves[k]].properties) {
        const Node& t = out_->nodes[p.node];
        if (t.kind != Node::kSchema || !t.texts_only || !(t.has & (Node::kConst | Node::kEnum)))
          continue;
        const std::vector<std::string>& req = sources_[leaves[k]].required;
        if (std::find(req.begin(), req.end(), p.name) != req.end()) candidates[p.name] |= bit;
      }
    }
    // (A table's slots hold 16-bit indexes: a union of more names or values than half of
    // that is read the ordinary way.)
    if (names.size() > 0x7fff) return;
    for (const auto& [name, mask] : candidates)
      if (std::popcount(mask) >= std::max(2, std::popcount(choice.valued) + 1))
        choice.value_name = name, choice.valued = mask;
    std::map<std::string, uint64_t> values;
    for (size_t k = 0; k < leaves.size() && !choice.value_name.empty(); ++k) {
      if (!(choice.valued >> k & 1)) continue;
      for (const Property& p : sources_[leaves[k]].properties)
        if (p.name == choice.value_name)
          for (const std::string& t : out_->nodes[p.node].texts) values[t] |= uint64_t{1} << k;
    }
    if (values.size() > 0x7fff) return;
    // The entries, each with the plans of its live leaves (made once per set).
    std::map<uint64_t, std::array<uint32_t, 2>> made;
    const size_t plans_before = out_->plans.size();
    const size_t full = out_->plans[u.object_plan[0]].evals.size();
    // Kept when a name of a closed leaf or a value a leaf takes (what valid maps start
    // with) spares half the evaluations at least, three or more: a choice costs about 140
    // instructions a map (measured on the benchmark's workflow, whose jobs' names spare
    // one evaluation of three), a plan entry about 50 to make, look names up in and end.
    bool narrows = false;
    auto spares = [&](const ChoiceTable::Entry& e) {
      if (e.plans[0] == kNone) return false;
      const size_t size = out_->plans[e.plans[0]].evals.size();
      return size * 2 <= full && full - size >= 3;
    };
    auto fill = [&](ChoiceTable::Entry* e, uint64_t live) {
      e->live = live;
      if (live == choice.all) return;  // the node's own plan
      auto it = made.find(live);
      if (it == made.end()) {
        const Keep keep = [&](uint32_t x, uint32_t c) {
          auto u = under.find({x, c});
          return u == under.end() || (u->second & live) != 0;
        };
        std::array<uint32_t, 2> plans{kNone, kNone};
        for (int committed = 0; committed < 2; ++committed) {
          ObjectPlan plan;
          if (!Plan(i, kNone, kAll, 0, committed != 0, &plan, &keep)) {
            plans = {kNone, kNone};  // past kMaxEntries: the node's own plan
            break;
          }
          plans[committed] = AddPlan(std::move(plan));
        }
        it = made.emplace(live, plans).first;
      }
      e->plans = it->second;
    };
    auto name_live = [&](uint64_t has) { return choice.all & (~choice.closed | has); };
    for (const auto& [name, has] : names) {
      ChoiceTable::Entry e;
      e.text = name;
      fill(&e, name_live(has));
      narrows |= spares(e);
      choice.names.entries.push_back(std::move(e));
    }
    fill(&choice.other, name_live(0));
    if (!choice.value_name.empty()) {
      // value_name's value: a string one of them takes, another string, or no string.
      auto it = names.find(choice.value_name);
      const uint64_t named = name_live(it != names.end() ? it->second : 0);
      for (const auto& [value, takes] : values) {
        ChoiceTable::Entry e;
        e.text = value;
        fill(&e, named & (~choice.valued | takes));
        narrows |= spares(e);
        choice.values.entries.push_back(std::move(e));
      }
      fill(&choice.other_value, named & ~choice.valued);
      fill(&choice.no_string, named);
    }
    if (!narrows) {
      out_->plans.resize(plans_before);  // (only this choice's plans were added since)
      return;
    }
    choice.names.Build();
    choice.values.Build();
    for (int committed = 0; committed < 2; ++committed)
      out_->plans[u.object_plan[committed]].choice = static_cast<uint32_t>(out_->choices.size());
    out_->choices.push_back(std::move(choice));
  }

  // Node::members and its table, once the node is in place (the names are views of its
  // watched strings, or of Compiled::long_names).
  void BuildMembers(uint32_t i) { BuildMembersOf(&out_->nodes[i], sources_[i].properties); }
  void BuildMembersOf(Node* n, const std::vector<Property>& properties) {
    struct Named {
      std::string_view name;
      uint32_t property;
      uint32_t watch;
      uint8_t bit;
    };
    std::vector<Named> members;
    n->member_table.clear();
    n->member_names.clear();
    n->member_lengths = 0;
    n->member_bits = false;
    for (const Property& p : properties)
      members.push_back({p.name, p.node, kNone, Node::Member::kNoBit});
    for (uint32_t w = 0; w < n->watched.size(); ++w) {
      bool found = false;
      for (auto& m : members) {
        if (m.name == n->watched[w]) {
          m.watch = w;
          found = true;
        }
      }
      if (!found) members.push_back({n->watched[w], kNone, w, Node::Member::kNoBit});
    }
    if (members.empty()) return;
    uint8_t bits = 0;
    for (Named& m : members) {
      const bool integer_like =
          !m.name.empty() && (m.name[0] == '-' || (m.name[0] >= '0' && m.name[0] <= '9'));
      if (bits < 64 && !integer_like) m.bit = bits++;
    }
    n->member_bits = bits != 0;
    size_t size = 4;
    n->member_shift = 62;
    while (size < members.size() * 2) {
      size *= 2;
      --n->member_shift;
    }
    n->member_table.assign(size, Node::Member{});
    n->member_names.assign(size, std::string_view());
    std::vector<size_t> place(members.size());
    for (const Named& m : members) {
      const MemberKey k = MemberKeyOf(m.name);
      n->member_lengths |= LengthBit(m.name.size());
      size_t at = MemberSlot(k.hash, n->member_shift);
      while (n->member_table[at].size != Node::Member::kEmpty) at = (at + 1) & (size - 1);
      n->member_table[at] =
          Node::Member{k.a, k.b, static_cast<uint32_t>(m.name.size()), m.property, m.watch, m.bit};
      if (m.name.size() > 16) {
        // (A watched name's view is of its node; a property's own string is the compiler's.)
        n->member_names[at] = m.watch != kNone
                                  ? std::string_view(n->watched[m.watch])
                                  : std::string_view(out_->long_names.emplace_back(m.name));
      }
      place[&m - members.data()] = at;
    }
    // The expected order: properties as declared (members starts with them, in order).
    if (size <= Node::Member::kNoPlace) {
      const size_t declared = properties.size();
      if (declared != 0) n->first_member = static_cast<uint16_t>(place[0]);
      for (size_t k = 0; k + 1 < declared; ++k)
        n->member_table[place[k]].next = static_cast<uint16_t>(place[k + 1]);
    }
  }

  // Node::sure_low and sure_high. Validator::TakeDecimal approximates a decimal x by a, its
  // digits rounded to a double and divided by an exact power of 10 (two roundings, each
  // within a relative 2^-53), so |a - x| <= |a| 2^-51, and compares a with the range. The
  // verdict Double gives compares x rounded to a double, X, with each bound b (a double);
  // rounding keeps order. For a lower bound b, a >= L(b) makes X >= b, and X > b for an
  // exclusive one:
  // - b > 0, L = b (1 + 2^-48): x >= a (1 - 2^-51) >= b (1 + 2^-48) (1 - 2^-51) > b (1 +
  //   2^-49), past b by more than half a unit in its last place (b 2^-53), so X > b.
  // - b < 0, L = b (1 - 2^-48): for a >= 0, x >= 0 > b; for a < 0, x >= a (1 + 2^-51) >=
  //   b (1 - 2^-48) (1 + 2^-51) > b + |b| 2^-49: X > b as above.
  // - b = 0: a has the sign of x (0 only for the digits 0), and x is 0 or at least 10^-22:
  //   L = 0, or the least positive double for an exclusive bound.
  // Computing L rounds within b 2^-53, which the margins absorb; an L that overflows is
  // infinite and takes nothing. Each upper bound is the mirror image, -L(-b). The range is
  // kept as two floats, each rounded inwards, so that both fit the node's first 64 bytes.
  // A node with multipleOf has an empty range: no approximation settles it (TakeDecimal
  // then leaves the number to the exact conversion, with no test of its own).
  static void SureBounds(Node* n) {
    if (n->has & Node::kMultipleOf) {
      n->sure_low = std::numeric_limits<float>::infinity();
      n->sure_high = -std::numeric_limits<float>::infinity();
      return;
    }
    auto low = [](double b, bool exclusive) {
      if (b == 0) return exclusive ? std::numeric_limits<double>::denorm_min() : 0.0;
      return b > 0 ? b * (1 + 0x1p-48) : b * (1 - 0x1p-48);
    };
    // The least float at least x (-FLT_MAX below it, infinity above FLT_MAX).
    auto float_up = [](double x) {
      constexpr float kMax = std::numeric_limits<float>::max();
      if (x > kMax) return std::numeric_limits<float>::infinity();
      if (x < -kMax) return -kMax;
      float f = static_cast<float>(x);
      if (f < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
      return f;
    };
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    if (n->has & Node::kMinimum) lo = std::max(lo, low(n->minimum, false));
    if (n->has & Node::kExclusiveMinimum) lo = std::max(lo, low(n->exclusive_minimum, true));
    if (n->has & Node::kMaximum) hi = std::min(hi, -low(-n->maximum, false));
    if (n->has & Node::kExclusiveMaximum) hi = std::min(hi, -low(-n->exclusive_maximum, true));
    n->sure_low = lo == -std::numeric_limits<double>::infinity() ? lo : float_up(lo);
    n->sure_high = hi == std::numeric_limits<double>::infinity() ? hi : -float_up(-hi);
  }

  // Node::key_work, end_object_work and end_array_work, from the compiled keywords.
  static void WorkFlags(Node* n) {
    n->plain_types = n->texts_only ? n->types & kTypeString : n->types;
    if (n->kind != Node::kSchema) {
      n->scalar_plain = n->kind == Node::kTrue;  // (its types: all; no bounds)
      return;
    }
    uint8_t kw = 0;
    if (!n->member_table.empty()) kw |= Node::kKeyMembers;
    if (!n->rare().pattern_properties.empty()) kw |= Node::kKeyPatterns;
    if (n->additional_properties != kNone) kw |= Node::kKeyAdditional;
    if (n->unevaluated_properties != kNone) kw |= Node::kKeyUneval;
    if (n->property_names != kNone) kw |= Node::kKeyNames;
    n->key_work = kw;
    const bool names_direct = (kw & ~(Node::kKeyMembers | Node::kKeyAdditional)) == 0;
    for (Node::Member& m : n->member_table)
      m.direct = names_direct && m.size != Node::Member::kEmpty && m.property != kNone &&
                 (m.watch < 64 || m.watch == kNone);
    n->lone_keys = !(kw & Node::kKeyUneval) && (!(kw & Node::kKeyPatterns) || n->one_pattern);
    // (An integer multipleOf is checked inline: citm's amounts.)
    n->scalar_plain = !n->has_in_place && !(n->has & Node::kContent) &&
                      (!(n->has & Node::kMultipleOf) || n->integer_multiple) &&
                      (!(n->has & (Node::kConst | Node::kEnum)) || n->texts_only);
    n->scalar_union = n->has == 0 && n->pattern == kNone && n->min_length == 0 &&
                      n->max_length == kNoLimit && n->any_of.empty() != n->one_of.empty() &&
                      n->all_of.empty() && n->not_ == kNone && n->if_ == kNone && n->ref == kNone &&
                      n->dynamic_ref == kNone;
    SureBounds(n);
    const bool either = (n->has & (Node::kConst | Node::kEnum)) != 0 || !n->any_of.empty() ||
                        !n->one_of.empty() || n->not_ != kNone || n->if_ != kNone;
    const bool typed = (n->has & Node::kType) != 0;
    n->end_object_work = either || (typed && !(n->types & kTypeObject)) || n->min_properties != 0 ||
                         n->max_properties != kNoLimit || !n->required_w.empty() ||
                         !n->rare().dependent_required_w.empty() ||
                         !n->rare().dependent_schemas.empty();
    n->end_array_work = either || (typed && !(n->types & kTypeArray)) || n->min_items != 0 ||
                        n->max_items != kNoLimit || (n->has & Node::kUniqueItems) != 0 ||
                        n->contains != kNone;
  }

  // Node::end_table: Validator::Finalize's verdict on an object by names, for each set of
  // watched names present, with every branch it made (ExpandInPlace's, Plan's: a branch of
  // anyOf, oneOf, not or if that can take an object and is not name_judged; then, else,
  // dependentSchemas and what is applied with allOf or $ref, unless name_judged) passing.
  void EndTable(Node* n) const {
    n->has_end_table = false;
    n->end_table = 0;
    const size_t names = n->watched.size();
    if (n->kind != Node::kSchema || !n->end_object_work || n->tracks_evaluated ||
        (n->has & (Node::kConst | Node::kEnum)) || n->dynamic_ref != kNone ||
        names > Node::kEndTableNames || ((n->has & Node::kType) && !(n->types & kTypeObject)))
      return;
    const std::vector<Node>& nodes = out_->nodes;
    auto viable = [&](uint32_t c) {
      const Node& b = nodes[c];
      return b.kind != Node::kFalse && (!(b.has & Node::kType) || (b.types & kTypeObject)) &&
             !b.name_judged;
    };
    auto judged = [&](uint32_t c) { return c != kNone && nodes[c].name_judged; };
    for (uint64_t s = 0; s < (uint64_t{1} << names); ++s) {
      auto seen = [&](uint32_t w) { return w < names && (s >> w & 1) != 0; };
      const Node::NameTest* test = n->name_tests.data();
      auto judge = [&] {
        const Node::NameTest& t = *test++;
        if (t.by_mask) return ((s & t.mask) == t.mask) != t.negated;
        return RunNameTest(t.program, seen);
      };
      bool ok = true;
      for (uint32_t w : n->required_w) ok &= seen(w);
      for (const auto& [trigger, list] : n->rare().dependent_required_w)
        if (seen(trigger))
          for (uint32_t w : list) ok &= seen(w);
      // The branches made (passing), then the name_judged ones, in NameTests' order.
      bool any_ok = false, not_ok = false, if_ok = false, then_ok = true, else_ok = true;
      int one_ok = 0;
      for (uint32_t c : n->any_of) any_ok |= viable(c);
      for (uint32_t c : n->one_of) one_ok += viable(c);
      if (n->not_ != kNone) not_ok = viable(n->not_);
      if (n->if_ != kNone) if_ok = viable(n->if_);
      for (uint32_t c : n->any_of)
        if (judged(c)) any_ok |= judge();
      for (uint32_t c : n->one_of)
        if (judged(c)) one_ok += judge();
      if (judged(n->not_)) not_ok = judge();
      if (n->if_ != kNone) {
        if (judged(n->if_)) if_ok = judge();
        if (judged(n->then_)) then_ok = judge();
        if (judged(n->else_)) else_ok = judge();
      }
      if (!n->any_of.empty() && !any_ok) ok = false;
      if (!n->one_of.empty() && one_ok != 1) ok = false;
      if (n->not_ != kNone && not_ok) ok = false;
      if (n->if_ != kNone && (if_ok ? !then_ok : !else_ok)) ok = false;
      if (ok) n->end_table |= uint64_t{1} << s;
    }
    n->has_end_table = true;
  }

  // NodeRare::cond_direct: a node whose only in-place keywords are if / then / else, each
  // branch name_judged or member-judged (MemberJudged), one at least member-judged, and
  // the names the member-judged ones require among the first 64 watched (added to them);
  // beside them, anyOf, oneOf and not only of name_judged branches (Finalize judges those
  // by the names seen, as it does for any node).
  void CondParts(uint32_t i) {
    Node& n = out_->nodes[i];
    auto judged = [&](uint32_t c) { return out_->nodes[c].name_judged; };
    if (n.kind != Node::kSchema || n.if_ == kNone || n.ref != kNone || n.dynamic_ref != kNone ||
        n.dynamic_name != kNone || !n.all_of.empty() ||
        !std::all_of(n.any_of.begin(), n.any_of.end(), judged) ||
        !std::all_of(n.one_of.begin(), n.one_of.end(), judged) ||
        (n.not_ != kNone && !judged(n.not_)) || !n.rare().dependent_schemas.empty() ||
        n.tracks_evaluated || (n.has & (Node::kConst | Node::kEnum)))
      return;
    const uint32_t branch[3] = {n.if_, n.then_, n.else_};
    uint8_t parts = 0;
    for (int p = 0; p < 3; ++p) {
      if (branch[p] == kNone || out_->nodes[branch[p]].name_judged) continue;
      if (!MemberJudged(branch[p], i)) return;
      parts |= static_cast<uint8_t>(1u << p);
    }
    if (parts == 0) return;
    std::vector<std::string> added;
    uint64_t required[3] = {};
    for (int p = 0; p < 3; ++p) {
      if (!(parts >> p & 1)) continue;
      for (const std::string& name : sources_[branch[p]].required) {
        auto it = std::find(n.watched.begin(), n.watched.end(), name);
        size_t w = static_cast<size_t>(it - n.watched.begin());
        if (it == n.watched.end()) {
          auto a = std::find(added.begin(), added.end(), name);
          w = n.watched.size() + static_cast<size_t>(a - added.begin());
          if (a == added.end()) added.push_back(name);
        }
        if (w >= 64) return;
        required[p] |= uint64_t{1} << w;
      }
    }
    for (std::string& name : added) n.watched.push_back(std::move(name));
    NodeRare& r = n.rare_mut();
    r.cond_direct = true;
    r.cond_parts = parts;
    for (int p = 0; p < 3; ++p) r.cond_required[p] = required[p];
  }
  // A branch that on an object checks `required` and `properties` alone, each property one
  // of its parent's: its verdict follows from the names present and each member's
  // verdicts, with no evaluation of its own. A member's scalar is judged by the branch's
  // subschema for it (Validator::CondChild); a container, when that subschema judges one
  // by its type and counts alone (no keyword that looks into one, no in-place keyword,
  // const or enum: ShallowCheck), by its type when it opens and its counts at its end
  // (Node::kCondCount), and by an evaluation of the subschema beside the member's own
  // (Validator::CondContainer, NodeRare::cond_deep) when not.
  bool MemberJudged(uint32_t c, uint32_t parent) const {
    const Node& b = out_->nodes[c];
    if (b.kind != Node::kSchema || (b.has & ~uint32_t{Node::kType}) != 0 ||
        ((b.has & Node::kType) && !(b.types & kTypeObject)) || b.has_in_place ||
        b.tracks_evaluated || !b.rare().pattern_properties.empty() ||
        !b.rare().dependent_required.empty() || b.additional_properties != kNone ||
        b.property_names != kNone || b.min_properties != 0 || b.max_properties != kNoLimit ||
        b.unevaluated_properties != kNone || b.dynamic_ref != kNone)
      return false;
    const std::vector<Property>& own = sources_[parent].properties;
    for (const Property& p : sources_[c].properties)
      if (std::none_of(own.begin(), own.end(), [&](const Property& o) { return o.name == p.name; }))
        return false;
    return true;
  }
  // Whether the subschema v of a member-judged branch for a member whose own subschema is
  // `own` judges a container by its type and counts alone, its counts (if any) at the end
  // of a direct frame own always opens (CountHost). False: the container is evaluated by v.
  bool ShallowCheck(uint32_t v_index, uint32_t own) const {
    const Node& v = out_->nodes[v_index];
    if (v.kind != Node::kSchema) return true;
    const Source& vs = sources_[v_index];
    if (v.has_in_place || v.tracks_evaluated ||
        (v.has & (Node::kConst | Node::kEnum | Node::kUniqueItems | Node::kContains)) ||
        (v.has_object_work &&
         (!vs.properties.empty() || !vs.required.empty() || !v.rare().pattern_properties.empty() ||
          v.additional_properties != kNone || v.property_names != kNone ||
          !v.rare().dependent_required.empty() || !v.rare().dependent_schemas.empty() ||
          v.unevaluated_properties != kNone)) ||
        (v.has_array_work &&
         (!v.prefix_items.empty() || v.items != kNone || v.unevaluated_items != kNone)))
      return false;
    const bool item_counts = v.min_items != 0 || v.max_items != kNoLimit;
    const bool member_counts = v.min_properties != 0 || v.max_properties != kNoLimit;
    return (!item_counts || CountHost(own, false)) && (!member_counts || CountHost(own, true));
  }
  // Whether node i opens a direct frame for every map (is_map) or array, with no capture,
  // and has nothing in place: a Node::kCondCount copy of it then reads a container as it
  // does. (Not a conditional's node, whose own member copies this same pass may not have
  // made yet; no patternProperties, which DirectFlags takes only as one_pattern.)
  bool CountHost(uint32_t i, bool is_map) const {
    const Node& n = out_->nodes[i];
    if (n.kind == Node::kTrue) return true;
    if (n.kind != Node::kSchema || n.has_in_place || n.tracks_evaluated ||
        (n.has & (Node::kConst | Node::kEnum)))
      return false;
    if (is_map) return n.rare().pattern_properties.empty() && n.unevaluated_properties == kNone;
    return n.contains == kNone && n.unevaluated_items == kNone && !(n.has & Node::kUniqueItems);
  }
  // For each cond_direct node that is a direct_map, each member a member-judged branch has
  // a subschema for: a copy of the member's own subschema (Node::kCondMember) in its
  // member table, holding the branches' subschemas for it (NodeRare::cond_checks). The
  // copy passes nothing by the inline checks and opens no direct frame, so a direct
  // frame's member goes to Validator::CondChild / CondContainer; elsewhere it is judged as
  // its original.
  void MakeCondMembers() {
    std::vector<Node>& nodes = out_->nodes;
    const size_t count = nodes.size();
    for (uint32_t i = 0; i < count; ++i) {
      if (!nodes[i].rare().cond_direct || !nodes[i].direct_map) continue;
      const uint32_t branch[3] = {nodes[i].if_, nodes[i].then_, nodes[i].else_};
      std::vector<std::pair<std::string, std::vector<std::pair<uint8_t, uint32_t>>>> by_name;
      for (int p = 0; p < 3; ++p) {
        if (!(nodes[i].rare().cond_parts >> p & 1)) continue;
        for (const Property& prop : sources_[branch[p]].properties) {
          auto it = std::find_if(by_name.begin(), by_name.end(),
                                 [&](const auto& e) { return e.first == prop.name; });
          if (it == by_name.end()) it = by_name.insert(by_name.end(), {prop.name, {}});
          it->second.emplace_back(static_cast<uint8_t>(1u << p), prop.node);
        }
      }
      for (auto& [name, checks] : by_name) {
        const Node::Member* m = nodes[i].FindMember(name, MemberKeyOf(name));
        const size_t at = static_cast<size_t>(m - nodes[i].member_table.data());
        const uint32_t own = m->property;  // (a property of the node: MemberJudged)
        uint32_t base = own;
        const bool deep = std::any_of(checks.begin(), checks.end(),
                                      [&](const auto& c) { return !ShallowCheck(c.second, own); });
        const bool counts = std::any_of(checks.begin(), checks.end(), [&](const auto& c) {
          const Node& v = nodes[c.second];
          return v.kind == Node::kSchema && (v.min_items != 0 || v.max_items != kNoLimit ||
                                             v.min_properties != 0 || v.max_properties != kNoLimit);
        });
        const uint32_t nested = deep ? NestedHost(own, checks) : kNone;
        if (counts && !deep) {
          // A copy of the member's subschema whose frame judges the counts at its end
          // (Validator::CondCount): it always has end work, and no quick end, so that its
          // end reaches FinalizeDirect. (Its end as the original's: NodeRare::cond_base.)
          Node host = nodes[own];
          if (host.kind == Node::kTrue) host.kind = Node::kSchema;  // (`{}`: it has an end)
          host.has |= Node::kCondCount;
          host.end_object_work = host.end_array_work = true;
          host.quick_end = false;
          host.leaf_array = host.leaf_map = false;
          host.rare_mut().cond_base = own;
          host.rare_mut().cond_checks = checks;
          RoomForNode(nodes);
          nodes.push_back(std::move(host));
          base = static_cast<uint32_t>(nodes.size() - 1);
        }
        const uint32_t copy = CondMemberCopy(own, base, std::move(checks));
        NodeRare& r = nodes[copy].rare_mut();
        r.cond_deep = deep;
        r.cond_nested = nested;
        nodes[i].member_table[at].property = copy;
      }
    }
  }
  // A Node::kCondMember copy of node `own` (a member's subschema) holding cond_base and
  // cond_checks: no inline check passes it and it opens no direct frame. Its index.
  uint32_t CondMemberCopy(uint32_t own, uint32_t base,
                          std::vector<std::pair<uint8_t, uint32_t>> checks) {
    std::vector<Node>& nodes = out_->nodes;
    Node copy = nodes[own];
    copy.has |= Node::kCondMember;
    copy.scalar_plain = false;
    copy.plain_types = 0;
    copy.scalar_union = false;
    copy.direct_map = copy.direct_array = copy.leaf_array = copy.leaf_map = false;
    copy.captures_items = false;
    NodeRare& r = copy.rare_mut();
    r.cond_base = base;
    r.cond_checks = std::move(checks);
    // (CondChild's verdicts on a null and on a boolean, where the types alone give them.)
    const uint8_t types[2] = {kTypeNull, kTypeBoolean};
    for (int t = 0; t < 2; ++t) {
      const Node& b = nodes[base];
      bool by_type = b.scalar_plain && (b.plain_types & types[t]);
      uint8_t fails = 0;
      for (const auto& [bit, node] : r.cond_checks) {
        const Node& c = nodes[node];
        if (c.kind == Node::kSchema && (c.has & Node::kType) && !(c.types & types[t]))
          fails |= bit;
        else if (!(c.scalar_plain && (c.plain_types & types[t])))
          by_type = false;
      }
      if (by_type) {
        r.cond_by_type |= static_cast<uint8_t>(1u << t);
        r.cond_type_fails[t] = fails;
      }
    }
    RoomForNode(nodes);
    nodes.push_back(std::move(copy));
    return static_cast<uint32_t>(nodes.size() - 1);
  }

  // NodeRare::cond_nested: for a member whose own subschema `own` is a direct map with
  // nothing in place and no patternProperties, and whose branches' subschemas (`checks`)
  // check `properties` alone (and a type), each property's subschema judging a container
  // by its type alone: a copy of own (Node::kCondNested) whose member table holds, for each
  // such property, a Node::kCondMember copy of own's subschema for the name (its property,
  // else its additionalProperties) listing the branches' subschemas for it. A map of the
  // member opens the copy's direct frame; its members set the branches' bits in its
  // evaluation, which its end hands to the parent's (Validator::CondNested). kNone: the
  // map gets the ordinary frame of NodeRare::cond_deep.
  uint32_t NestedHost(uint32_t own, const std::vector<std::pair<uint8_t, uint32_t>>& checks) {
    std::vector<Node>& nodes = out_->nodes;
    {
      const Node& o = nodes[own];
      if (o.kind != Node::kSchema || !o.direct_map || o.has_in_place || o.tracks_evaluated ||
          (o.has & (Node::kConst | Node::kEnum)) || !o.rare().pattern_properties.empty() ||
          o.unevaluated_properties != kNone || o.property_names != kNone)
        return kNone;
    }
    std::vector<Property> props = sources_[own].properties;
    std::vector<std::pair<std::string, std::vector<std::pair<uint8_t, uint32_t>>>> by_name;
    for (const auto& [bit, c] : checks) {
      const Node& cn = nodes[c];
      if (cn.kind == Node::kTrue) continue;
      const Source& cs = sources_[c];
      if (cn.kind != Node::kSchema || (cn.has & ~uint32_t{Node::kType}) != 0 || cn.has_in_place ||
          cn.tracks_evaluated || !cs.required.empty() || !cn.rare().pattern_properties.empty() ||
          cn.additional_properties != kNone || cn.property_names != kNone ||
          cn.min_properties != 0 || cn.max_properties != kNoLimit ||
          !cn.rare().dependent_required.empty() || !cn.rare().dependent_schemas.empty() ||
          cn.unevaluated_properties != kNone)
        return kNone;
      for (const Property& p : cs.properties) {
        const Node& v = nodes[p.node];
        if (v.kind == Node::kSchema &&
            (!ShallowCheck(p.node, p.node) || v.min_items != 0 || v.max_items != kNoLimit ||
             v.min_properties != 0 || v.max_properties != kNoLimit))
          return kNone;
        auto it = std::find_if(by_name.begin(), by_name.end(),
                               [&](const auto& e) { return e.first == p.name; });
        if (it == by_name.end()) it = by_name.insert(by_name.end(), {p.name, {}});
        it->second.emplace_back(bit, p.node);
      }
    }
    if (by_name.empty()) return kNone;
    // Each name's own subschema: its property, else additionalProperties (none: no host).
    std::vector<uint32_t> bases;
    for (const auto& entry : by_name) {
      auto it = std::find_if(props.begin(), props.end(),
                             [&](const Property& p) { return p.name == entry.first; });
      bases.push_back(it != props.end() ? it->node : nodes[own].additional_properties);
      if (bases.back() == kNone) return kNone;
    }
    for (size_t k = 0; k < by_name.size(); ++k) {
      // (No structured binding: clang 14 refuses one captured by a lambda.)
      const std::string& name = by_name[k].first;
      const uint32_t at = CondMemberCopy(bases[k], bases[k], std::move(by_name[k].second));
      auto it = std::find_if(props.begin(), props.end(),
                             [&](const Property& p) { return p.name == name; });
      if (it != props.end())
        it->node = at;
      else
        props.push_back(Property{name, at});
    }
    Node host = nodes[own];
    host.has |= Node::kCondNested;
    host.rare_mut().cond_base = own;
    RoomForNode(nodes);
    nodes.push_back(std::move(host));
    Node& h = nodes.back();
    BuildMembersOf(&h, props);
    WorkFlags(&h);
    h.end_object_work = true;  // (its end reaches FinalizeDirect: no quick end)
    h.quick_end = false;
    h.direct_map = true;
    h.direct_array = h.leaf_array = h.leaf_map = h.captures_items = false;
    return static_cast<uint32_t>(nodes.size() - 1);
  }

  // A scalar union that every null, or every boolean, passes whatever its value (a branch
  // of anyOf whose inline check lets the type through, or the one branch of oneOf that does
  // where every other one's type excludes it: the nullable `{"anyOf": [{"type": "null"},
  // {"$ref": ...}]}`) is scalar_plain for those types alone (plain_types): a direct frame
  // passes such a null with no evaluation. (Validator's PlainExact: no verdict from its
  // plain check on another type.)
  void UnionPlain(Node* n) const {
    if (!n->scalar_union) return;
    const std::vector<Node>& nodes = out_->nodes;
    const bool any = !n->any_of.empty();
    uint8_t sure = 0;
    for (const uint8_t t : {kTypeNull, kTypeBoolean}) {
      int passes = 0;
      bool others_fail = true;
      for (uint32_t c : any ? n->any_of : n->one_of) {
        const Node& b = nodes[c];
        const bool pass = b.kind == Node::kTrue || (b.kind == Node::kSchema && b.scalar_plain &&
                                                    !b.scalar_union && (b.plain_types & t));
        const bool fail = b.kind == Node::kFalse ||
                          (b.kind == Node::kSchema && (b.has & Node::kType) && !(b.types & t));
        passes += pass;
        others_fail &= pass || fail;
      }
      if (any ? passes > 0 : passes == 1 && others_fail) sure |= t;
    }
    if (sure == 0) return;
    n->scalar_plain = true;
    n->plain_types = sure;
  }

  // Node::direct_map and direct_array.
  static void DirectFlags(Node* n) {
    if (n->kind == Node::kTrue) {
      n->direct_map = n->direct_array = true;
      return;
    }
    const bool cond = n->rare().cond_direct;  // (in place: if, then, else alone; CondParts)
    if (n->kind != Node::kSchema || (n->has_in_place && !cond) || n->tracks_evaluated ||
        (n->has & (Node::kConst | Node::kEnum)))
      return;
    if (cond) {
      // A map only (the branches of an array are made as ever), with no quick_end. With
      // every branch member-judged, its end passes by Validator::PassesCondEnd's counts,
      // names and branch verdicts (Node::kCondNode); with one name_judged, Finalize judges.
      n->direct_map = (n->rare().pattern_properties.empty() || n->one_pattern) &&
                      n->unevaluated_properties == kNone;
      const uint8_t present =
          static_cast<uint8_t>(1u | (n->then_ != kNone ? 2u : 0u) | (n->else_ != kNone ? 4u : 0u));
      if (n->rare().cond_parts == present && n->rare().dependent_required_w.empty() &&
          n->any_of.empty() && n->one_of.empty() && n->not_ == kNone &&
          (n->required_w.empty() || n->required_mask))
        n->has |= Node::kCondNode;
      else if (n->has_end_table)
        n->has |= Node::kCondTable;
      return;
    }
    // (uniqueItems: a direct array frame captures its items; a map has no use for it.)
    n->direct_map = (n->rare().pattern_properties.empty() || n->one_pattern) &&
                    n->unevaluated_properties == kNone;
    n->direct_array = n->contains == kNone && n->unevaluated_items == kNone;
    n->quick_end =
        n->rare().dependent_required_w.empty() && (n->required_w.empty() || n->required_mask);
    n->captures_items = n->direct_array && (n->has & Node::kUniqueItems);
    n->quick_max_items = n->captures_items ? std::min<uint64_t>(n->max_items, 1) : n->max_items;
  }

  // NodeRare::array_leaf: a union with nothing else to judge on an array (a type that
  // takes one, no array keyword, nothing in place but anyOf or oneOf, no record of
  // evaluated items) of which one branch alone takes an array, every other one's `type`
  // excluding it (or false); that branch a direct array with nothing in place and no
  // uniqueItems.
  void ArrayLeaf(Node* n) const {
    const std::vector<Node>& nodes = out_->nodes;
    if (n->kind != Node::kSchema || (n->has & ~uint32_t{Node::kType}) != 0 ||
        ((n->has & Node::kType) && !(n->types & kTypeArray)) || n->has_array_work ||
        n->tracks_evaluated || !n->all_of.empty() || n->not_ != kNone || n->if_ != kNone ||
        n->ref != kNone || n->dynamic_ref != kNone || !n->rare().dependent_schemas.empty() ||
        n->any_of.empty() == n->one_of.empty())
      return;
    uint32_t leaf = kNone;
    for (uint32_t c : n->any_of.empty() ? n->one_of : n->any_of) {
      const Node& b = nodes[c];
      if (b.kind == Node::kFalse ||
          (b.kind == Node::kSchema && (b.has & Node::kType) && !(b.types & kTypeArray)))
        continue;
      // (Not one that captures its items: its ends, CloseInts and CloseDirectCaptured,
      // report no union.)
      if (leaf != kNone || b.kind != Node::kSchema || !b.direct_array || b.captures_items ||
          b.has_in_place)
        return;
      leaf = c;
    }
    if (leaf != kNone) n->rare_mut().array_leaf = leaf;
  }

  // Node::leaf_array and Node::leaf_map (after every node's scalar_plain, direct_array and
  // direct_map).
  void Leaves(Node* n) const {
    // (Its end then passes by its counts alone: Validator::OnEnd.)
    n->leaf_array =
        n->direct_array && !n->captures_items &&
        (n->kind != Node::kSchema || !n->end_array_work || n->quick_end) &&
        (n->kind != Node::kSchema || !(n->has & Node::kType) || (n->types & kTypeArray));
    // (A map with if / then / else judged by members has end work and no quick_end:
    // DirectFlags.)
    n->leaf_map = n->direct_map && n->kind == Node::kSchema &&
                  (!(n->has & Node::kType) || (n->types & kTypeObject)) &&
                  (!n->end_object_work || n->quick_end);
  }

  // Node::short_map (after Leaves, and after MakeCondMembers: a kCondMember copy has no
  // plain check).
  void ShortMap(Node* n) const {
    n->short_map = false;
    if (!n->leaf_map || n->required_w.size() > kMaxTakenMembers) return;
    const std::vector<Node>& nodes = out_->nodes;
    for (uint32_t w : n->required_w) {
      const std::string& name = n->watched[w];
      const Node::Member* m = n->FindMember(name, MemberKeyOf(name));
      // (A name with no subschema: TakeMembers leaves it to the events, as LeafKeyFind.)
      if (m == nullptr || m->property == kNone) return;
      const Node& p = nodes[m->property];
      // (Validator::PassesEmpty.)
      auto passes_empty = [&p](bool is_map) {
        if (!(is_map ? p.direct_map : p.direct_array)) return false;
        if ((p.has & Node::kType) && !(p.types & (is_map ? kTypeObject : kTypeArray))) return false;
        if (p.kind != Node::kSchema || !(is_map ? p.end_object_work : p.end_array_work))
          return true;
        return p.quick_end &&
               (is_map ? p.min_properties == 0 && p.required_mask == 0 : p.min_items == 0);
      };
      const bool may_be_empty = passes_empty(false) || passes_empty(true);
      // (A plain check that lets some scalar through.)
      if (!(p.scalar_plain && (p.plain_types & ~(kTypeObject | kTypeArray))) && !may_be_empty)
        return;
    }
    n->short_map = true;
  }

  // Node::Member::sole (after WorkFlags: key_work). (From the properties' names: a member
  // table keeps the text of a long or watched name alone.)
  void SoleMembers(uint32_t i) {
    Node& n = out_->nodes[i];
    if (n.kind != Node::kSchema || (n.key_work & Node::kKeyNames)) return;
    const std::vector<PatternProperty>& patterns = n.rare().pattern_properties;
    for (const Property& p : sources_[i].properties) {
      const Node::Member* found = n.FindMember(p.name, MemberKeyOf(p.name));
      if (found == nullptr || found->property == kNone) continue;
      Node::Member& m = n.member_table[static_cast<size_t>(found - n.member_table.data())];
      m.sole = std::none_of(patterns.begin(), patterns.end(), [&](const PatternProperty& pp) {
        return out_->Search(pp.regex, p.name);
      });
    }
  }

  // Node::one_pattern.
  void OnePattern(uint32_t i) {
    Node& n = out_->nodes[i];
    if (n.kind != Node::kSchema || n.rare().pattern_properties.size() != 1) return;
    const uint32_t regex = n.rare().pattern_properties[0].regex;
    for (const Property& p : sources_[i].properties)
      if (out_->Search(regex, p.name)) return;
    n.one_pattern = true;
  }

  bool NewRegex(const std::string& pattern, const Pos& p, const std::string& keyword,
                uint32_t* index, std::string* error) {
    auto it = regex_memo_.find(pattern);
    if (it != regex_memo_.end()) return *index = it->second, true;
    // A pattern with a byte automaton is searched by it alone, with no RE2 compiled: what
    // AsciiDfa takes, the translation to RE2 takes too (test
    // AsciiDfa.TakesOnlyWhatTheTranslationTakes, fuzz_regex), so RE2 has nothing to refuse
    // there. Any other pattern is RE2's, or refused.
    std::optional<AsciiDfa> dfa = AsciiDfa::Build(pattern);
    std::unique_ptr<re2::RE2> re;
    if (!dfa) {
      std::string why;
      re = CompileEcmaRegex(pattern, &why);
      if (!re) return Fail(p, keyword, why, error);
    }
    out_->regex_sources.push_back(pattern);
    out_->dfas.push_back(std::move(dfa));
    out_->regexes.push_back(std::move(re));
    *index = static_cast<uint32_t>(out_->regexes.size() - 1);
    regex_memo_[pattern] = *index;
    return true;
  }

  // Node::has_in_place, from the node's keywords.
  static bool AppliesInPlace(const Node& n) {
    return n.ref != kNone || n.dynamic_ref != kNone || !n.all_of.empty() || !n.any_of.empty() ||
           !n.one_of.empty() || n.not_ != kNone || n.if_ != kNone ||
           !n.rare().dependent_schemas.empty();
  }

  // The nodes a node applies in place (to the same value), dynamic targets included.
  void InPlace(const Node& n, std::vector<uint32_t>* out) const {
    out->clear();
    for (uint32_t c : n.all_of) out->push_back(c);
    for (uint32_t c : n.any_of) out->push_back(c);
    for (uint32_t c : n.one_of) out->push_back(c);
    for (uint32_t c : {n.not_, n.if_, n.then_, n.else_, n.ref, n.dynamic_ref})
      if (c != kNone) out->push_back(c);
    for (const auto& d : n.rare().dependent_schemas) out->push_back(d.node);
    if (n.dynamic_name != kNone) {
      for (const Resource& r : out_->resources) {
        if (n.dynamic_name == kRecursiveAnchor) {
          if (r.recursive_anchor && r.root != kNone) out->push_back(r.root);
        } else {
          for (const auto& [name, node] : r.dynamic_anchors)
            if (name == n.dynamic_name) out->push_back(node);
        }
      }
    }
  }

  // A cycle of in-place applications consumes no input: it would never end. And the
  // evaluations one value gets (a node, and every node it applies in place, counted once
  // per way it is reached: allOf of allOf of ... doubles at each level) are bounded, so
  // neither the memory a container's evaluations take nor the time a scalar's take can
  // grow exponentially with the schema.
  static constexpr uint64_t kMaxInPlace = 10000;
  // "FILE: POINTER" of a node, for load errors.
  std::string LocationText(const Node& n) const {
    const std::string_view loc = out_->Location(n);
    return out_->documents[n.document] + ": " + (loc.empty() ? std::string("/") : std::string(loc));
  }
  bool CheckCycles(std::string* error) {
    const size_t count = out_->nodes.size();
    std::vector<uint8_t> state(count, 0);  // 0 new, 1 on the path, 2 done
    std::vector<std::pair<uint32_t, size_t>> stack;
    std::vector<std::vector<uint32_t>> edges(count);
    for (size_t i = 0; i < count; ++i) InPlace(out_->nodes[i], &edges[i]);
    std::vector<uint64_t> expansion(count, 0);
    for (uint32_t start = 0; start < count; ++start) {
      if (state[start]) continue;
      stack.push_back({start, 0});
      state[start] = 1;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < edges[node].size()) {
          const uint32_t c = edges[node][next++];
          if (state[c] == 1) {
            *error = LocationText(out_->nodes[c]) +
                     ": a $ref cycle that consumes no input (it would never end)";
            return false;
          }
          if (state[c] == 0) {
            state[c] = 1;
            stack.push_back({c, 0});
          }
        } else {
          // Done: every node it applies in place is, and counted.
          uint64_t total = 1;
          for (uint32_t c : edges[node]) total = std::min(total + expansion[c], kMaxInPlace + 1);
          expansion[node] = total;
          if (total > kMaxInPlace) {
            *error = LocationText(out_->nodes[node]) +
                     ": its in-place subschemas (allOf, anyOf, oneOf, not, if, $ref, ...) "
                     "expand to more than " +
                     std::to_string(kMaxInPlace) + " evaluations of one value";
            return false;
          }
          state[node] = 2;
          stack.pop_back();
        }
      }
    }
    return true;
  }

  // A subschema that is only a $ref (`{"$ref": "#/$defs/x"}`, and any $ref in drafts 4 to
  // 7) is its target: every reference to it is made a reference to the target, so no
  // evaluation is spent on the hop. Not with dynamic references, where entering the
  // $ref's own schema resource can matter.
  bool PureRef(const Node& n) const {
    return n.kind == Node::kSchema && n.ref != kNone && n.has == 0 && n.types == kAllTypes &&
           n.pattern == kNone && n.min_length == 0 && n.max_length == kNoLimit &&
           !n.has_object_work && !n.has_array_work && n.all_of.empty() && n.any_of.empty() &&
           n.one_of.empty() && n.not_ == kNone && n.if_ == kNone && n.dynamic_ref == kNone &&
           n.rare().dependent_schemas.empty();
  }
  uint32_t Target(uint32_t node) const {
    for (size_t hops = 0; hops < out_->nodes.size() && PureRef(out_->nodes[node]); ++hops)
      node = out_->nodes[node].ref;
    return node;
  }
  void ForwardRefs() {
    auto fwd = [&](uint32_t& c) {
      if (c != kNone) c = Target(c);
    };
    for (Source& s : sources_)
      for (Property& p : s.properties) fwd(p.node);
    for (Node& n : out_->nodes) {
      for (uint32_t& c : n.prefix_items) fwd(c);
      for (uint32_t* c :
           {&n.items, &n.contains, &n.unevaluated_items, &n.additional_properties,
            &n.property_names, &n.unevaluated_properties, &n.not_, &n.if_, &n.then_, &n.else_})
        fwd(*c);
      if (n.rare_) {
        for (PatternProperty& p : n.rare_->pattern_properties) fwd(p.node);
        for (DependentSchema& d : n.rare_->dependent_schemas) fwd(d.node);
      }
      for (auto* list : {&n.all_of, &n.any_of, &n.one_of})
        for (uint32_t& c : *list) fwd(c);
      if (n.ref != kNone && !PureRef(n)) fwd(n.ref);
    }
    for (auto& s : out_->schemas) s->set_root(Target(s->root()));
  }

  // A subschema that has `properties` and nothing else (annotations aside): a bundle of
  // members that a parent applies with allOf (`"allOf": [{"$ref": "#/$defs/identity"}]`,
  // as package manifests' schemas are written).
  bool Bundle(uint32_t c) const {
    const Node& b = out_->nodes[c];
    const NodeRare& r = b.rare();
    return b.kind == Node::kSchema && b.has == 0 && b.types == kAllTypes && b.pattern == kNone &&
           b.min_length == 0 && b.max_length == kNoLimit && !b.has_in_place && !b.has_array_work &&
           !b.tracks_evaluated && b.additional_properties == kNone && b.property_names == kNone &&
           b.unevaluated_properties == kNone && b.min_properties == 0 &&
           b.max_properties == kNoLimit && b.watched.empty() && r.pattern_properties.empty() &&
           r.dependent_required.empty() && r.dependent_schemas.empty() &&
           !sources_[c].properties.empty();
  }

  // A bundle in a subschema's allOf becomes that subschema's own properties, when its
  // names are not among them already and the subschema has no additionalProperties (which
  // reads its own properties alone): the same verdict on every instance (on an object,
  // each of the bundle's members gets its subschema either way; on anything else both are
  // vacuous), with one evaluation less on every object. The bundle's property subschemas
  // are the same nodes, so a violation in one names the same keyword location.
  // (docs/schema.md, "One pass": how --all-errors differs.)
  void MergeBundles() {
    for (uint32_t i = 0; i < out_->nodes.size(); ++i) {
      Node& n = out_->nodes[i];
      if (n.kind != Node::kSchema || n.all_of.empty() || n.additional_properties != kNone) continue;
      std::vector<Property>& mine = sources_[i].properties;
      std::vector<uint32_t> kept;
      for (uint32_t c : n.all_of) {
        const std::vector<Property>& theirs = sources_[c].properties;
        bool merge = c != i && Bundle(c);
        for (size_t k = 0; merge && k < theirs.size(); ++k)
          for (const Property& q : mine) merge &= theirs[k].name != q.name;
        if (!merge) {
          kept.push_back(c);
          continue;
        }
        mine.insert(mine.end(), theirs.begin(), theirs.end());
        n.has_object_work = true;
      }
      if (kept.size() == n.all_of.size()) continue;
      n.all_of = std::move(kept);
      n.has_in_place = AppliesInPlace(n);
    }
  }

  // tracks_evaluated: the node or one it reaches in place has unevaluated*.
  void MarkTracking() {
    const size_t count = out_->nodes.size();
    std::vector<std::vector<uint32_t>> edges(count);
    for (size_t i = 0; i < count; ++i) InPlace(out_->nodes[i], &edges[i]);
    bool changed = true;
    for (Node& n : out_->nodes)
      n.tracks_evaluated = n.unevaluated_items != kNone || n.unevaluated_properties != kNone;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < count; ++i) {
        if (out_->nodes[i].tracks_evaluated) continue;
        for (uint32_t c : edges[i]) {
          if (out_->nodes[c].tracks_evaluated) {
            out_->nodes[i].tracks_evaluated = true;
            changed = true;
            break;
          }
        }
      }
    }
  }

  Compiled* out_;
  const JsonSchemaSet::LoadOptions& options_;
  Draft default_draft_ = Draft::k2020;
  std::vector<std::unique_ptr<Doc>> docs_;
  std::vector<Pos> positions_;
  std::unordered_map<const JVal*, uint32_t> pos_of_;
  std::unordered_map<std::string, uint32_t> uri_to_pos_;
  std::unordered_map<std::string, const JVal*> anchor_pos_;
  std::set<const JVal*> dynamic_anchor_pos_;
  struct DynamicCandidate {
    const JVal* value;
    uint32_t resource;
    uint32_t name;
  };
  std::vector<DynamicCandidate> dynamic_candidates_;
  std::unordered_map<const JVal*, uint32_t> memo_;
  std::unordered_map<std::string, uint32_t> regex_memo_;
  std::set<std::string> loaded_embedded_;
  std::set<uint32_t> touched_;   // resources with a compiled node
  std::vector<Source> sources_;  // beside each node
};

Draft DraftOfNumber(int n) {
  switch (n) {
    case 4:
      return Draft::k4;
    case 6:
      return Draft::k6;
    case 7:
      return Draft::k7;
    case 2019:
      return Draft::k2019;
    default:
      return Draft::k2020;
  }
}

std::string FileUri(const std::string& file) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(file, ec);
  return "file://" + (ec ? file : abs.lexically_normal().string());
}

bool ReadWhole(const std::string& path, std::string* out) {
  // A regular file's size in one read (a character at a time through istreambuf_iterator
  // cost 19 instructions a byte), then what is left that way: all of a pipe, and what a
  // file gained meanwhile.
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->clear();
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    const uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec) {
      out->resize(static_cast<size_t>(size));
      in.read(out->data(), static_cast<std::streamsize>(size));
      out->resize(static_cast<size_t>(in.gcount()));
    }
  }
  if (in) out->append(std::istreambuf_iterator<char>(in), {});
  return !in.bad();
}

}  // namespace
}  // namespace schema

JsonSchemaSet::~JsonSchemaSet() = default;

std::shared_ptr<const JsonSchemaSet> JsonSchemaSet::Load(std::vector<Document> documents,
                                                         std::string* error,
                                                         const LoadOptions& options) {
  using namespace schema;
  auto compiled = std::make_unique<Compiled>();
  Compiler compiler(compiled.get(), options);
  compiler.set_default_draft(DraftOfNumber(options.default_draft));
  std::vector<uint32_t> named;
  for (const auto& remote : options.remotes) {
    Doc doc;
    doc.uri = remote.uri;
    doc.file = remote.uri;
    std::string why;
    if (!ParseJson(remote.text, &doc.root, &why)) {
      *error = remote.uri + ": " + why;
      return nullptr;
    }
    compiler.set_default_draft(DraftOfNumber(remote.default_draft));
    if (!compiler.AddDocument(std::move(doc), error)) return nullptr;
  }
  compiler.set_default_draft(DraftOfNumber(options.default_draft));
  for (Document& d : documents) {
    Doc doc;
    doc.name = d.name;
    doc.file = d.file.empty() ? d.name : d.file;
    doc.uri = d.uri.empty() ? FileUri(d.file.empty() ? d.name + ".json" : d.file) : d.uri;
    std::string why;
    if (!ParseJson(d.text, &doc.root, &why)) {
      *error = doc.file + ": not JSON: " + why;
      return nullptr;
    }
    if (!compiler.AddDocument(std::move(doc), error)) return nullptr;
    named.push_back(static_cast<uint32_t>(compiler.doc_count() - 1));
  }
  compiler.ReserveNodes();
  for (uint32_t d : named) {
    uint32_t root;
    if (!compiler.CompileRoot(d, &root, error)) return nullptr;
    const std::string& name = compiler.doc(d).name;
    LoadedSchema* s = compiled->NewSchema(root, name);
    s->set_document(compiled->nodes[root].document);
    compiled->by_name[name] = s;
    const std::string id = compiler.RootId(d);
    if (!id.empty() && !id.starts_with("file://")) compiled->by_name.emplace(id, s);
  }
  if (!compiler.Finish(error)) return nullptr;
  // (The tables grew by doubling while compiling; a loaded set keeps what it uses. A
  // node's own vectors are not moved: member_names views their strings. The nodes were
  // reserved for about as many as there are: a copy of them all, in pages touched for the
  // first time, to give back a few spare nodes would cost more than it saves.)
  if (compiled->nodes.capacity() - compiled->nodes.size() > compiled->nodes.size() / 8)
    compiled->nodes.shrink_to_fit();
  compiled->locations.shrink_to_fit();
  compiled->plans.shrink_to_fit();
  compiled->regexes.shrink_to_fit();
  compiled->regex_sources.shrink_to_fit();
  compiled->dfas.shrink_to_fit();
  compiled->resources.shrink_to_fit();
  std::shared_ptr<JsonSchemaSet> set(new JsonSchemaSet());
  set->compiled_ = std::move(compiled);
  return set;
}

namespace schema {
namespace {

// Every *.json of dir (sorted; `skip`, a file already read, left out) appended to
// documents, each named by its file name without ".json".
bool ReadDirectory(const std::string& dir, const std::filesystem::path& skip,
                   std::vector<JsonSchemaSet::Document>* documents, std::string* error) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file() &&
        (skip.empty() || std::filesystem::weakly_canonical(entry.path(), ec) != skip))
      files.push_back(entry.path());
  }
  if (ec) {
    *error = dir + ": " + ec.message();
    return false;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    JsonSchemaSet::Document d;
    d.name = f.stem().string();
    d.file = f.string();
    if (!ReadWhole(d.file, &d.text)) {
      *error = d.file + ": cannot be read";
      return false;
    }
    documents->push_back(std::move(d));
  }
  return true;
}

}  // namespace
}  // namespace schema

std::shared_ptr<const JsonSchemaSet> JsonSchemaSet::LoadDir(const std::string& dir,
                                                            std::string* error,
                                                            const LoadOptions& options) {
  std::vector<Document> documents;
  if (!schema::ReadDirectory(dir, {}, &documents, error)) return nullptr;
  return Load(std::move(documents), error, options);
}

std::shared_ptr<const JsonSchemaSet> JsonSchemaSet::LoadFile(const std::string& file,
                                                             const std::string& extra_dir,
                                                             std::string* error,
                                                             const LoadOptions& options) {
  std::vector<Document> documents;
  Document main;
  main.name = std::filesystem::path(file).stem().string();
  main.file = file;
  if (!schema::ReadWhole(file, &main.text)) {
    *error = file + ": cannot be read";
    return nullptr;
  }
  documents.push_back(std::move(main));
  std::error_code ec;
  if (!extra_dir.empty() &&
      !schema::ReadDirectory(extra_dir, std::filesystem::weakly_canonical(file, ec), &documents,
                             error))
    return nullptr;
  return Load(std::move(documents), error, options);
}

const JsonSchema* JsonSchemaSet::Find(std::string_view name) const {
  auto it = compiled_->by_name.find(std::string(name));
  return it == compiled_->by_name.end() ? nullptr : it->second;
}

std::vector<std::string> JsonSchemaSet::Names() const {
  std::vector<std::string> names;
  for (const auto& s : compiled_->schemas) names.push_back(s->name());
  std::sort(names.begin(), names.end());
  return names;
}

uint64_t JsonSchemaSet::compiled_bytes() const { return compiled_->bytes; }

}  // namespace rosetta::codec
