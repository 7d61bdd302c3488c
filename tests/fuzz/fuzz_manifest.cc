// Fuzz target: the manifest loader (shards/format/manifest.h). Any text is
// either a manifest or a Status naming the file; parsing never crashes,
// and a manifest it accepts serializes and parses back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "shards/format/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  sg::Manifest manifest;
  const sg::Status s = sg::Manifest::parse(text, "fuzz/manifest.json", &manifest);
  if (!s.ok()) {
    if (s.message().find("fuzz/manifest.json") == std::string::npos) std::abort();  // errors name the file
    return 0;
  }
  const std::string again = manifest.to_json();
  sg::Manifest reparsed;
  if (!sg::Manifest::parse(again, "fuzz/manifest.json", &reparsed).ok() || reparsed.to_json() != again) std::abort();
  return 0;
}
