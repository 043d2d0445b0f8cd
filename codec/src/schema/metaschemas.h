#pragma once

#include <string>
#include <string_view>

namespace rosetta::codec::schema {

// The official metaschemas of drafts 4 to 2020-12 and their vocabularies, built into the
// program (from ../shared/data/json-schema-metaschemas at configure time), by $id without
// a trailing '#'. Empty for any other URI: nothing is ever fetched.
std::string_view EmbeddedMetaschema(const std::string& uri);

// How many are built in (0 when the build found no metaschema folder).
size_t EmbeddedMetaschemaCount();

}  // namespace rosetta::codec::schema
