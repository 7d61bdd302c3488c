// Parsing of enums that have a name function: the inverse of name_of over
// the listed values.
#pragma once

#include <initializer_list>
#include <string>

namespace sg {

template <typename E>
bool parse_enum_name(const std::string& name, std::initializer_list<E> values, const char* (*name_of)(E), E* out) {
  for (E value : values) {
    if (name == name_of(value)) {
      *out = value;
      return true;
    }
  }
  return false;
}

}  // namespace sg
