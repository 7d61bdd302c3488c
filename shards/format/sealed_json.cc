#include "shards/format/sealed_json.h"

#include "compression/checksum.h"
#include "shards/format/manifest.h"

namespace sg {
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
