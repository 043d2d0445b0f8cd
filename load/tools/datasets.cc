// rosetta-datasets: writes the benchmark data sets (load/tools/datasets.h), deterministic for a
// seed, as JSON, and converts each with the rosetta codec (JSON -> X) into CBOR,
// MessagePack and protobuf (schemas in load/tools/proto/).
//   rosetta-datasets --out DIR [--seed N] [--descriptor-set FILE]
// Writes DIR/NAME.{json,cbor,msgpack,pb} for each data set, DIR/datasets.desc (the
// FileDescriptorSet: rosettad --descriptor-set DIR/datasets.desc) and DIR/manifest.tsv.
//
// JSON is written as a producer that knows the types would write it: float32 values with
// the fewest digits that read back as the same float32, bytes as base64 (proto3 JSON).
// The schemaless conversions cannot know a number was a float32, so they carry such
// values as float64 (docs/benchmarks.md "Datasets" shows what that costs).
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "load/tools/datasets.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"

namespace {

// xoshiro256** seeded by splitmix64: the same data for a seed on every platform, which
// the standard library's distributions do not promise.
class Random {
 public:
  explicit Random(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9e3779b97f4a7c15;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      s = z ^ (z >> 31);
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n) (Lemire's multiply-shift; its bias is below 2^-32 for our n).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo)));
  }                                                                        // [lo, hi)
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Unit(); }
  float UniformF(float lo, float hi) { return static_cast<float>(Uniform(lo, hi)); }
  bool Chance(double p) { return Unit() < p; }
  template <class T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Below(N)];
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// A JSON text built in one string; commas are placed by the writer.
class JsonText {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view k) {
    Separate();
    s_ += '"';
    s_ += k;
    s_ += "\":";
    first_ = true;
  }
  void Uint(uint64_t v) { Number(v); }
  void Int(int64_t v) { Number(v); }
  void Float(float v) { Number(v); }  // shortest digits that read back as this float32
  void Double(double v) { Number(v); }
  void Bool(bool v) {
    Separate();
    s_ += v ? "true" : "false";
  }
  void String(std::string_view v) {  // our strings need no escaping but quotes and backslashes
    Separate();
    s_ += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') s_ += '\\';
      s_ += c;
    }
    s_ += '"';
  }
  void Base64(const std::vector<uint8_t>& data) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Separate();
    s_ += '"';
    size_t i = 0;
    for (; i + 3 <= data.size(); i += 3) {
      const uint32_t v = data[i] << 16 | data[i + 1] << 8 | data[i + 2];
      for (int k = 18; k >= 0; k -= 6) s_ += kAlphabet[(v >> k) & 63];
    }
    if (const size_t rest = data.size() - i; rest > 0) {
      const uint32_t v = data[i] << 16 | (rest > 1 ? data[i + 1] << 8 : 0);
      s_ += kAlphabet[(v >> 18) & 63];
      s_ += kAlphabet[(v >> 12) & 63];
      s_ += rest > 1 ? kAlphabet[(v >> 6) & 63] : '=';
      s_ += '=';
    }
    s_ += '"';
  }
  // Inserts an already-formed JSON value.
  void Raw(std::string_view json) {
    Separate();
    s_ += json;
  }
  const std::string& str() const { return s_; }
  std::string Take() { return std::move(s_); }

 private:
  void Separate() {
    if (!first_) s_ += ',';
    first_ = false;
  }
  void Open(char c) {
    Separate();
    s_ += c;
    first_ = true;
  }
  void Close(char c) {
    s_ += c;
    first_ = false;
  }
  template <class T>
  void Number(T v) {
    Separate();
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s_.append(buf, r.ptr);
  }

  std::string s_;
  bool first_ = true;
};

constexpr const char* kItems[] = {
    "stone",       "granite",     "diorite",       "andesite",        "dirt",
    "cobblestone", "oak_planks",  "spruce_planks", "birch_log",       "sand",
    "gravel",      "gold_ore",    "iron_ore",      "coal_ore",        "oak_log",
    "glass",       "lapis_block", "sandstone",     "white_wool",      "gold_block",
    "iron_block",  "bricks",      "tnt",           "bookshelf",       "obsidian",
    "torch",       "chest",       "diamond_ore",   "crafting_table",  "furnace",
    "ladder",      "rail",        "lever",         "redstone_torch",  "snow",
    "ice",         "cactus",      "clay",          "jukebox",         "pumpkin",
    "netherrack",  "glowstone",   "iron_sword",    "diamond_pickaxe", "bow",
    "arrow",       "bread",       "apple",         "golden_apple",    "cooked_beef",
    "ender_pearl", "blaze_rod",   "map",           "compass",         "clock",
    "shield",      "elytra",      "trident",       "redstone",        "emerald",
    "iron_ingot",  "gold_ingot"};
constexpr const char* kEntities[] = {"minecraft:parrot", "minecraft:pig",      "minecraft:horse",
                                     "minecraft:boat",   "minecraft:minecart", "minecraft:strider",
                                     "minecraft:llama",  "minecraft:donkey"};
constexpr const char* kDimensions[] = {"minecraft:overworld", "minecraft:the_nether",
                                       "minecraft:the_end"};
constexpr const char* kGameTypes[] = {"SURVIVAL", "CREATIVE", "ADVENTURE", "SPECTATOR"};
constexpr const char* kNames[] = {"Steve",   "Alex",         "Polly",   "Rusty",
                                  "Captain", "Mr. Whiskers", "Biscuit", "Nugget"};
constexpr const char* kWords[] = {
    "index", "images", "api",      "v1",      "v2",    "users",      "static",  "css",     "js",
    "blog",  "posts",  "search",   "login",   "cart",  "products",   "assets",  "favicon", "feed",
    "about", "docs",   "download", "archive", "media", "thumbnails", "comments"};
constexpr const char* kExtensions[] = {"",     "",     "",    ".html", ".png",
                                       ".jpg", ".css", ".js", ".json", ".gif"};
constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::string RandomWord(Random& r, int min_len, int max_len) {
  std::string s(static_cast<size_t>(r.Range(min_len, max_len + 1)), 'a');
  for (char& c : s) c = static_cast<char>('a' + r.Below(26));
  return s;
}

// ---- log: 10,000 HTTP access log records -------------------------------------------

void LogRecord(Random& r, JsonText& j) {
  j.BeginObject();
  j.Key("address");
  j.BeginObject();
  for (const char* k : {"x0", "x1", "x2", "x3"}) {
    j.Key(k);
    j.Uint(r.Below(256));
  }
  j.EndObject();
  j.Key("identity");
  j.String(r.Chance(0.9) ? "-" : RandomWord(r, 3, 10));
  j.Key("userid");
  j.String(r.Chance(0.5) ? "-" : RandomWord(r, 3, 12));
  char date[40];
  std::snprintf(date, sizeof date, "%02d/%s/%04d:%02d:%02d:%02d %c%02d00",
                static_cast<int>(r.Range(1, 29)), r.Pick(kMonths),
                static_cast<int>(r.Range(2000, 2025)), static_cast<int>(r.Below(24)),
                static_cast<int>(r.Below(60)), static_cast<int>(r.Below(60)),
                r.Chance(0.5) ? '-' : '+', static_cast<int>(r.Below(13)));
  j.Key("date");
  j.String(date);
  static constexpr const char* kMethods[] = {"GET", "GET",  "GET", "GET",  "GET",   "GET",
                                             "GET", "POST", "PUT", "HEAD", "DELETE"};
  std::string request = std::string(r.Pick(kMethods)) + " ";
  const int segments = static_cast<int>(r.Range(1, 5));
  for (int i = 0; i < segments; ++i) request += std::string("/") + r.Pick(kWords);
  request += r.Pick(kExtensions);
  if (r.Chance(0.2)) request += "?q=" + RandomWord(r, 2, 10);
  request += r.Chance(0.7) ? " HTTP/1.1" : " HTTP/1.0";
  j.Key("request");
  j.String(request);
  static constexpr uint32_t kCodes[] = {200, 200, 200, 200, 200, 200, 200, 304,
                                        304, 301, 302, 404, 404, 403, 500, 503};
  j.Key("code");
  j.Uint(r.Pick(kCodes));
  j.Key("size");
  j.Uint(static_cast<uint64_t>(std::pow(10.0, r.Uniform(1, 6.5))));  // 10 B .. 3 MB, log-uniform
  j.EndObject();
}

// Also returns the ~1 KiB slice: the first records that fit in 1024 bytes of JSON.
std::string Log(Random& r, std::string* slice) {
  JsonText j;
  j.BeginObject();
  j.Key("logs");
  j.BeginArray();
  std::string small = "{\"logs\":[";
  bool small_open = true;
  for (int i = 0; i < 10000; ++i) {
    JsonText record;
    LogRecord(r, record);
    j.Raw(record.str());
    if (small_open) {
      std::string next = small + (small.size() > 9 ? "," : "") + record.str();
      if (next.size() + 2 <= 1024) {
        small = std::move(next);
      } else {
        small_open = false;
      }
    }
  }
  j.EndArray();
  j.EndObject();
  *slice = small + "]}";
  return j.Take();
}

// ---- mesh: 125,000 triangles --------------------------------------------------------

struct Vec3 {
  float x, y, z;
};

void Vector(JsonText& j, std::string_view key, Vec3 v) {
  j.Key(key);
  j.BeginObject();
  j.Key("x");
  j.Float(v.x);
  j.Key("y");
  j.Float(v.y);
  j.Key("z");
  j.Float(v.z);
  j.EndObject();
}

std::string Mesh(Random& r) {
  JsonText j;
  j.BeginObject();
  j.Key("triangles");
  j.BeginArray();
  for (int i = 0; i < 125000; ++i) {
    // A small triangle somewhere in a unit cube, as a scanned surface has, and its unit normal.
    const Vec3 c{r.UniformF(-1, 1), r.UniformF(-1, 1), r.UniformF(-1, 1)};
    auto near = [&] {
      return Vec3{c.x + r.UniformF(-0.01f, 0.01f), c.y + r.UniformF(-0.01f, 0.01f),
                  c.z + r.UniformF(-0.01f, 0.01f)};
    };
    const Vec3 a = near(), b = near(), d = near();
    const Vec3 u{b.x - a.x, b.y - a.y, b.z - a.z}, v{d.x - a.x, d.y - a.y, d.z - a.z};
    Vec3 n{u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
    const float len = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
    if (len > 0) n = {n.x / len, n.y / len, n.z / len};
    j.BeginObject();
    Vector(j, "v0", a);
    Vector(j, "v1", b);
    Vector(j, "v2", d);
    Vector(j, "normal", n);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  return j.Take();
}

// ---- minecraft_savedata: 500 players --------------------------------------------------

void Item(Random& r, JsonText& j) {
  j.BeginObject();
  j.Key("count");
  j.Int(r.Range(1, 65));
  j.Key("slot");
  j.Uint(r.Below(36));
  j.Key("id");
  j.String(std::string("minecraft:") + r.Pick(kItems));
  j.EndObject();
}

void Vector3d(Random& r, JsonText& j, std::string_view key, double scale) {
  j.Key(key);
  j.BeginObject();
  for (const char* k : {"x", "y", "z"}) {
    j.Key(k);
    j.Double(r.Uniform(-scale, scale));
  }
  j.EndObject();
}

void Uuid(Random& r, JsonText& j, std::string_view key) {
  j.Key(key);
  j.BeginObject();
  for (const char* k : {"x0", "x1", "x2", "x3"}) {
    j.Key(k);
    j.Uint(r.Below(uint64_t{1} << 32));
  }
  j.EndObject();
}

void Entity(Random& r, JsonText& j) {
  j.BeginObject();
  j.Key("id");
  j.String(r.Pick(kEntities));
  Vector3d(r, j, "pos", 10000);
  Vector3d(r, j, "motion", 1);
  j.Key("rotation");
  j.BeginObject();
  j.Key("x");
  j.Float(r.UniformF(0, 360));
  j.Key("y");
  j.Float(r.UniformF(-90, 90));
  j.EndObject();
  j.Key("fall_distance");
  j.Float(r.Chance(0.8) ? 0.0f : r.UniformF(0, 20));
  j.Key("fire");
  j.Uint(r.Chance(0.9) ? 0 : r.Below(65536));
  j.Key("air");
  j.Uint(r.Below(301));
  j.Key("on_ground");
  j.Bool(r.Chance(0.7));
  j.Key("no_gravity");
  j.Bool(r.Chance(0.05));
  j.Key("invulnerable");
  j.Bool(r.Chance(0.05));
  j.Key("portal_cooldown");
  j.Int(r.Chance(0.9) ? 0 : r.Range(0, 300));
  Uuid(r, j, "uuid");
  if (r.Chance(0.3)) {
    j.Key("custom_name");
    j.String(r.Pick(kNames));
  }
  j.Key("custom_name_visible");
  j.Bool(r.Chance(0.1));
  j.Key("silent");
  j.Bool(r.Chance(0.05));
  j.Key("glowing");
  j.Bool(r.Chance(0.05));
  j.EndObject();
}

void Player(Random& r, JsonText& j) {
  j.BeginObject();
  j.Key("game_type");
  j.String(r.Pick(kGameTypes));
  j.Key("previous_game_type");
  j.String(r.Pick(kGameTypes));
  j.Key("score");
  j.Int(r.Range(0, 1000000));
  j.Key("dimension");
  j.String(r.Pick(kDimensions));
  j.Key("selected_item_slot");
  j.Uint(r.Below(9));
  j.Key("selected_item");
  Item(r, j);
  if (r.Chance(0.5)) {
    j.Key("spawn_dimension");
    j.String(r.Pick(kDimensions));
  }
  j.Key("spawn_x");
  j.Int(r.Range(-30000, 30000));
  j.Key("spawn_y");
  j.Int(r.Range(0, 256));
  j.Key("spawn_z");
  j.Int(r.Range(-30000, 30000));
  if (r.Chance(0.5)) {
    j.Key("spawn_forced");
    j.Bool(r.Chance(0.5));
  }
  j.Key("sleep_timer");
  j.Uint(r.Chance(0.9) ? 0 : r.Below(101));
  j.Key("food_exhaustion_level");
  j.Float(r.UniformF(0, 4));
  j.Key("food_saturation_level");
  j.Float(r.UniformF(0, 20));
  j.Key("food_tick_timer");
  j.Uint(r.Below(81));
  j.Key("xp_level");
  j.Uint(r.Below(31));
  j.Key("xp_p");
  j.Float(r.UniformF(0, 1));
  j.Key("xp_total");
  j.Int(r.Range(0, 2000));
  j.Key("xp_seed");
  j.Int(r.Range(INT32_MIN, INT32_MAX));
  j.Key("inventory");
  j.BeginArray();
  for (int i = 0, n = static_cast<int>(r.Below(37)); i < n; ++i) Item(r, j);
  j.EndArray();
  j.Key("ender_items");
  j.BeginArray();
  for (int i = 0, n = static_cast<int>(r.Below(28)); i < n; ++i) Item(r, j);
  j.EndArray();
  j.Key("abilities");
  j.BeginObject();
  j.Key("walk_speed");
  j.Float(0.1f);
  j.Key("fly_speed");
  j.Float(0.05f);
  for (const char* k : {"may_fly", "flying", "invulnerable", "may_build", "instabuild"}) {
    j.Key(k);
    j.Bool(r.Chance(0.3));
  }
  j.EndObject();
  if (r.Chance(0.3)) Vector3d(r, j, "entered_nether_position", 10000);
  if (r.Chance(0.1)) {
    j.Key("root_vehicle");
    j.BeginObject();
    Uuid(r, j, "uuid");
    j.Key("entity");
    Entity(r, j);
    j.EndObject();
  }
  for (const char* side : {"shoulder_entity_left", "shoulder_entity_right"}) {
    if (r.Chance(0.1)) {
      j.Key(side);
      Entity(r, j);
    }
  }
  j.Key("seen_credits");
  j.Bool(r.Chance(0.3));
  j.Key("recipe_book");
  j.BeginObject();
  j.Key("recipes");
  j.BeginArray();
  for (int i = 0, n = static_cast<int>(r.Below(100)); i < n; ++i)
    j.String(std::string("minecraft:") + r.Pick(kItems));
  j.EndArray();
  j.Key("to_be_displayed");
  j.BeginArray();
  for (int i = 0, n = static_cast<int>(r.Below(10)); i < n; ++i)
    j.String(std::string("minecraft:") + r.Pick(kItems));
  j.EndArray();
  for (const char* k :
       {"is_filtering_craftable", "is_gui_open", "is_furnace_filtering_craftable",
        "is_furnace_gui_open", "is_blasting_furnace_filtering_craftable",
        "is_blasting_furnace_gui_open", "is_smoker_filtering_craftable", "is_smoker_gui_open"}) {
    j.Key(k);
    j.Bool(r.Chance(0.5));
  }
  j.EndObject();
  j.EndObject();
}

std::string Minecraft(Random& r) {
  JsonText j;
  j.BeginObject();
  j.Key("players");
  j.BeginArray();
  for (int i = 0; i < 500; ++i) Player(r, j);
  j.EndArray();
  j.EndObject();
  return j.Take();
}

// ---- mk48: 1,000 game updates ----------------------------------------------------------

struct EntityType {
  const char* name;
  double frequency;
  int turrets, weapons;
  bool sub;
};
constexpr EntityType kEntityTypes[] = {{"ARLEIGH_BURKE", 2.14, 1, 20, false},
                                       {"BISMARCK", 0.52, 4, 10, false},
                                       {"CLEMENCEAU", 0.97, 4, 16, false},
                                       {"FLETCHER", 1.46, 4, 18, false},
                                       {"G5", 13.16, 0, 2, false},
                                       {"IOWA", 1.55, 3, 28, false},
                                       {"KOLKATA", 0.83, 1, 15, false},
                                       {"OSA", 7.25, 2, 6, false},
                                       {"YASEN", 4.06, 0, 14, true},
                                       {"ZUBR", 12.92, 3, 11, false}};

const EntityType& PickEntityType(Random& r) {
  double total = 0;
  for (const EntityType& t : kEntityTypes) total += t.frequency;
  double x = r.Uniform(0, total);
  for (const EntityType& t : kEntityTypes) {
    if ((x -= t.frequency) < 0) return t;
  }
  return kEntityTypes[0];
}

int64_t Velocity(Random& r) {
  const int64_t roll = r.Below(100);
  if (roll < 80) return r.Range(140, 900);
  if (roll < 90) return 0;
  return r.Range(-900 / 4, -140 / 4);
}

void Contact(Random& r, JsonText& j, int64_t players) {
  const EntityType& type = PickEntityType(r);
  const bool known = r.Chance(0.9);  // contacts out of sensor range have no type
  const bool submerged = type.sub && r.Chance(0.9);
  j.BeginObject();
  j.Key("damage");
  j.Uint(r.Chance(0.7) ? 0 : r.Below(256));
  j.Key("entity_id");
  j.Uint(r.Below(uint64_t{1} << 32));
  if (known) {
    j.Key("entity_type");
    j.String(type.name);
  }
  j.Key("guidance");
  j.BeginObject();
  j.Key("angle");
  j.Uint(r.Below(65536));
  j.Key("submerge");
  j.Bool(submerged);
  j.Key("velocity");
  j.Int(Velocity(r));
  j.EndObject();
  if (known && r.Chance(0.8)) {
    j.Key("player_id");
    j.Uint(r.Below(static_cast<uint64_t>(players)));
  }
  j.Key("reloads");
  j.BeginArray();
  for (int i = 0; i < (known ? type.weapons : 0); ++i) j.Bool(r.Chance(0.8));
  j.EndArray();
  j.Key("transform");
  j.BeginObject();
  j.Key("altitude");
  j.Int(submerged ? r.Range(-120, -35) : 0);
  j.Key("angle");
  j.Uint(r.Below(65536));
  j.Key("position");
  j.BeginObject();
  j.Key("x");
  j.Float(r.UniformF(-750, 750));
  j.Key("y");
  j.Float(r.UniformF(-750, 750));
  j.EndObject();
  j.Key("velocity");
  j.Int(Velocity(r));
  j.EndObject();
  j.Key("turret_angles");
  j.BeginArray();
  for (int i = 0; i < (known ? type.turrets : 0); ++i) j.Uint(r.Below(65536));
  j.EndArray();
  j.EndObject();
}

std::string Mk48(Random& r) {
  JsonText j;
  j.BeginObject();
  j.Key("updates");
  j.BeginArray();
  for (int u = 0; u < 1000; ++u) {
    const int64_t players = r.Range(200, 400);
    const float world_radius =
        static_cast<float>(std::sqrt(static_cast<double>(players) * 15000.0) + r.Uniform(-50, 50));
    const int64_t terrain_radius = static_cast<int64_t>(std::ceil(world_radius / 1600.0f));
    j.BeginObject();
    j.Key("contacts");
    j.BeginArray();
    for (int i = 0, n = static_cast<int>(r.Range(20, 40)); i < n; ++i) Contact(r, j, players);
    j.EndArray();
    j.Key("score");
    j.Uint(static_cast<uint64_t>(std::pow(r.Unit(), 4) * 5000) + r.Below(50));
    j.Key("world_radius");
    j.Float(world_radius);
    j.Key("terrain_updates");
    j.BeginArray();
    for (int i = 0, n = static_cast<int>(r.Range(3, 10)); i < n; ++i) {
      j.BeginObject();
      j.Key("chunk_id");
      j.BeginObject();
      j.Key("x");
      j.Int(r.Range(-terrain_radius, terrain_radius));
      j.Key("y");
      j.Int(r.Range(-terrain_radius, terrain_radius));
      j.EndObject();
      // Mostly small deltas; 2% are whole new chunks.
      std::vector<uint8_t> data(
          static_cast<size_t>(r.Chance(0.02) ? r.Range(900, 1100) : r.Range(3, 9)));
      for (uint8_t& b : data) b = static_cast<uint8_t>(r.Below(256));
      j.Key("data");
      j.Base64(data);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  return j.Take();
}

// ---- output ---------------------------------------------------------------------------

bool WriteFile(const std::filesystem::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(out);
}

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "rosetta-datasets: %s\n", message.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir, descriptor_set = ROSETTA_DATASETS_DESCRIPTOR;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (a == "--seed" && i + 1 < argc) {
      std::string_view s = argv[++i];
      if (std::from_chars(s.data(), s.data() + s.size(), seed).ptr != s.data() + s.size())
        Fail("--seed needs an integer");
    } else if (a == "--descriptor-set" && i + 1 < argc) {
      descriptor_set = argv[++i];
    } else if (a == "--help" || a == "-h") {
      std::puts("usage: rosetta-datasets --out DIR [--seed N] [--descriptor-set FILE]");
      return 0;
    } else {
      Fail("usage: rosetta-datasets --out DIR [--seed N] [--descriptor-set FILE]");
    }
  }
  if (out_dir.empty()) Fail("--out DIR is required");
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) Fail("cannot create " + out_dir + ": " + ec.message());

  std::string error;
  std::unique_ptr<rosetta::codec::Schema> schema =
      rosetta::codec::Schema::Load({descriptor_set}, &error);
  if (!schema) Fail(error);
  {
    std::ifstream in(descriptor_set, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!WriteFile(std::filesystem::path(out_dir) / "datasets.desc", s.str()))
      Fail("cannot write datasets.desc");
  }

  // Each data set from its own stream, so adding one never changes another.
  std::string log_1k;
  std::vector<std::pair<std::string, std::string>> sets;
  {
    Random r(seed * 4 + 0);
    sets.emplace_back("log", Log(r, &log_1k));
  }
  {
    Random r(seed * 4 + 1);
    sets.emplace_back("mesh", Mesh(r));
  }
  {
    Random r(seed * 4 + 2);
    sets.emplace_back("minecraft_savedata", Minecraft(r));
  }
  {
    Random r(seed * 4 + 3);
    sets.emplace_back("mk48", Mk48(r));
  }
  sets.emplace_back("log_1k", std::move(log_1k));

  std::string manifest = "name\tmessage_type\tjson\tcbor\tmsgpack\tpb\n";
  for (auto& [name, json] : sets) {
    const rosetta::load::DatasetInfo* info = rosetta::load::FindDataset(name);
    const std::filesystem::path base = std::filesystem::path(out_dir) / name;
    if (!WriteFile(base.string() + ".json", json)) Fail("cannot write " + base.string() + ".json");
    manifest += name + "\t" + std::string(info->message_type) + "\t" + std::to_string(json.size());
    // The input padded, as the service keeps it, so the JSON reader needs no copy.
    std::string padded = json;
    padded.append(rosetta::codec::kInputPadding, '\0');
    for (rosetta::codec::Format to :
         {rosetta::codec::Format::kCbor, rosetta::codec::Format::kMsgpack,
          rosetta::codec::Format::kProtobuf}) {
      rosetta::codec::TranscodeRequest req;
      req.from = rosetta::codec::Format::kJson;
      req.to = to;
      req.input = std::string_view(padded.data(), json.size());
      req.input_padding = rosetta::codec::kInputPadding;
      req.schema = schema.get();
      req.message_type = info->message_type;
      rosetta::codec::OutputBuffer out;
      rosetta::codec::Status s = rosetta::codec::Transcode(req, out);
      if (!s.ok())
        Fail(name + ": json -> " + std::string(rosetta::codec::FormatName(to)) + ": " +
             s.ToString());
      // What was written must read back under the same rules.
      rosetta::codec::TranscodeRequest check;
      check.from = to;
      check.input = out.view();
      check.schema = schema.get();
      check.message_type = info->message_type;
      s = rosetta::codec::Validate(check);
      if (!s.ok())
        Fail(name + ": " + std::string(rosetta::codec::FormatName(to)) +
             " does not validate: " + s.ToString());
      const std::string path =
          base.string() + "." + std::string(rosetta::load::DatasetExtension(to));
      if (!WriteFile(path, out.view())) Fail("cannot write " + path);
      manifest += "\t" + std::to_string(out.size());
    }
    manifest += "\n";
  }
  if (!WriteFile(std::filesystem::path(out_dir) / "manifest.tsv", manifest))
    Fail("cannot write manifest.tsv");
  std::fputs(manifest.c_str(), stdout);
  return 0;
}
