// JSON metadata that carries a checksum of the rest of itself
// ("content_xxh3", over the compact dump with sorted keys), so an edited or
// damaged file is refused instead of trusted: manifest.json and a
// partitioned graph's partition.json.
#pragma once

#include <nlohmann/json.hpp>

namespace sg {

// Adds the checksum of everything else in `j`.
void seal_json(nlohmann::json* j);
// Whether `j`'s checksum matches the rest of it; a document without one
// passes only if `required` is false. Throws as parse_hex64 does on a
// malformed checksum.
bool sealed_json_intact(const nlohmann::json& j, bool required);

}  // namespace sg
