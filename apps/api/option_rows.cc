#include "apps/api/option_rows.h"

#include <cmath>

namespace shardgraph::options {

Status not_valid(const std::string& name, const std::string& text, const std::string& why) {
  return Status::InvalidArgument("--" + name + ": '" + text + "' " + why);
}

Status parse_flag(const std::string& name, const std::string& text, bool* value) {
  if (text != "true" && text != "1" && text != "false" && text != "0") {
    return not_valid(name, text, "is not true or false");
  }
  *value = text == "true" || text == "1";
  return Status::OK();
}

Status parse_choice(const std::string& name, const std::string& text, const std::vector<std::string>& choices,
                    std::string* value) {
  for (const std::string& choice : choices) {
    if (text == choice) {
      *value = text;
      return Status::OK();
    }
  }
  std::string listed;
  for (size_t i = 0; i < choices.size(); ++i) {
    listed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return Status::InvalidArgument("--" + name + " must be " + listed + ", not '" + text + "'");
}

Status parse_number(const std::string& name, const std::string& text, double* value) {
  double parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(parsed) || parsed < 0) {
    return not_valid(name, text, "must be a number, not negative");
  }
  *value = parsed;
  return Status::OK();
}

std::string number_text(double value) {
  char shown[32];
  std::snprintf(shown, sizeof(shown), "%.17g", value);
  return shown;
}

}  // namespace shardgraph::options
