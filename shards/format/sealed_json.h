// JSON metadata that carries a checksum of the rest of itself
// ("content_xxh3", over the compact dump with sorted keys), so an edited or
// damaged file is refused instead of trusted: manifest.json and a
// partitioned graph's partition.json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace sg {

// Checksums in JSON: 16 lower-case hex digits (parse_hex64 throws
// std::invalid_argument on anything else).
std::string hex64(uint64_t value);
uint64_t parse_hex64(const std::string& text);

// Adds the checksum of everything else in `j`.
void seal_json(nlohmann::json* j);
// Whether `j`'s checksum matches the rest of it; a document without one
// passes only if `required` is false. Throws as parse_hex64 does on a
// malformed checksum.
bool sealed_json_intact(const nlohmann::json& j, bool required);

}  // namespace sg
