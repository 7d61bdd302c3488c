#include "shards/format/sealed_json.h"

#include <cstdio>
#include <stdexcept>
#include "compression/checksum.h"

namespace sg {

std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

uint64_t parse_hex64(const std::string& text) {
  if (text.size() != 16) throw std::invalid_argument("checksum must be 16 hex digits");
  return std::stoull(text, nullptr, 16);
}

namespace {

constexpr const char* kSealKey = "content_xxh3";

uint64_t content_checksum(const nlohmann::json& content) {
  const std::string canonical = content.dump();
  return checksum64(canonical.data(), canonical.size());
}

}  // namespace

void seal_json(nlohmann::json* j) { (*j)[kSealKey] = hex64(content_checksum(*j)); }

bool sealed_json_intact(const nlohmann::json& j, bool required) {
  if (!j.contains(kSealKey)) return !required;
  nlohmann::json content = j;
  content.erase(kSealKey);
  return parse_hex64(j.at(kSealKey).get<std::string>()) == content_checksum(content);
}

}  // namespace sg
