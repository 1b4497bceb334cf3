// simdjson On-Demand plumbing shared by the JSON readers (Rio SPPO, Rio BRT, OpenSky).
#pragma once

#include <simdjson.h>

#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "frota/codec/decode_internal.h"

namespace frota::codec::internal {

/// A parser and a padded copy of the input, kept per thread: simdjson needs readable
/// padding after the bytes, and reusing both keeps steady polling allocation-free.
class JsonScratch {
 public:
  static JsonScratch& ForThisThread() {
    thread_local JsonScratch scratch;
    return scratch;
  }

  /// Starts iterating `bytes`; strings read from `doc` live until the next Iterate.
  simdjson::error_code Iterate(std::string_view bytes, simdjson::ondemand::document& doc) {
    buffer_.resize(bytes.size() + simdjson::SIMDJSON_PADDING);
    if (!bytes.empty()) {
      std::memcpy(buffer_.data(), bytes.data(), bytes.size());
    }
    std::memset(buffer_.data() + bytes.size(), 0, simdjson::SIMDJSON_PADDING);
    return parser_.iterate(buffer_.data(), bytes.size(), buffer_.size()).get(doc);
  }

 private:
  simdjson::ondemand::parser parser_;
  std::vector<char> buffer_;
};

/// Reads a value where a scalar belongs: strings unescaped, numbers and booleans as their
/// token, null as not present, arrays and objects marked as containers (left unread).
inline simdjson::error_code ReadField(simdjson::ondemand::value value, Field& field) {
  using simdjson::ondemand::json_type;
  json_type type{};
  if (const auto error = value.type().get(type)) {
    return error;
  }
  switch (type) {
    case json_type::string: {
      // Most strings hold no escape: view them in the input instead of unescaping a copy.
      const std::string_view token = Trim(value.raw_json_token());
      if (token.size() >= 2 && token.back() == '"' && !Contains(token, '\\')) {
        field = Field::Text(token.substr(1, token.size() - 2));
        return simdjson::SUCCESS;
      }
      std::string_view text;
      if (const auto error = value.get_string().get(text)) {
        return error;
      }
      field = Field::Text(text);
      return simdjson::SUCCESS;
    }
    case json_type::array:
    case json_type::object:
      field = Field{type == json_type::array ? "[" : "{", true, false, true};
      return simdjson::SUCCESS;
    case json_type::number:
    case json_type::boolean:
    case json_type::null: {
      const std::string_view token = Trim(value.raw_json_token());
      field = (type == json_type::null && token == "null") ? Field::Null() : Field::Token(token);
      return simdjson::SUCCESS;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

/// Whether the raw key bytes at `raw` (just past the opening quote) are exactly `literal`:
/// its bytes, then the closing quote. Reads stay inside the padded input.
template <std::size_t N>
inline bool RawKeyIs(const char* raw, const char (&literal)[N]) {
  return std::memcmp(raw, literal, N - 1) == 0 && raw[N - 1] == '"';
}

/// The slot of `record` that a field's key names, or nullptr. Keys are compared in place
/// (`Record::RawSlot`); only a key that matches nothing and holds an escape is unescaped
/// and looked up again (`Record::Slot`). Scanning every key for its end and for escapes
/// was a quarter of the decode time.
template <typename Record>
inline simdjson::error_code FindSlot(simdjson::ondemand::field& field, Record& record,
                                     Field*& slot) {
  const char* raw = field.key().raw();
  slot = record.RawSlot(raw);
  if (slot != nullptr) {
    return simdjson::SUCCESS;
  }
  const char* end = raw;
  while (*end != '"' && *end != '\\') {  // stage 1 has seen the closing quote
    ++end;
  }
  if (*end == '"') {
    return simdjson::SUCCESS;  // a plain key the reader does not want
  }
  std::string_view key;
  if (const auto error = field.unescaped_key().get(key)) {
    return error;
  }
  slot = record.Slot(key);
  return simdjson::SUCCESS;
}

/// The key of an object field; keys without escapes are viewed in place.
inline simdjson::error_code ReadKey(simdjson::ondemand::field& field, std::string_view& key) {
  const char* raw = field.key().raw();
  const char* end = raw;
  while (*end != '"') {  // stage 1 has seen the closing quote, so this ends
    ++end;
  }
  const std::string_view candidate(raw, static_cast<std::size_t>(end - raw));
  if (!Contains(candidate, '\\')) {
    key = candidate;
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(key);
}

/// `key == literal`, unrolled by the compiler: key lookups run for every field of every
/// record, and a libc memcmp call per comparison showed in profiles.
template <std::size_t N>
inline bool KeyIs(std::string_view key, const char (&literal)[N]) {
  if (key.size() != N - 1) {
    return false;
  }
  for (std::size_t i = 0; i + 1 < N; ++i) {
    if (key[i] != literal[i]) {
      return false;
    }
  }
  return true;
}

/// What a JSON value is, for details ("element is a string, not an object").
inline std::string_view JsonTypeName(simdjson::ondemand::json_type type) {
  using simdjson::ondemand::json_type;
  switch (type) {
    case json_type::array:
      return "an array";
    case json_type::object:
      return "an object";
    case json_type::number:
      return "a number";
    case json_type::string:
      return "a string";
    case json_type::boolean:
      return "a boolean";
    case json_type::null:
      return "null";
  }
  return "a value";
}

/// After the root value: anything left but whitespace makes the response invalid JSON.
inline bool HasTrailingContent(simdjson::ondemand::document& doc) {
  const char* location = nullptr;
  return doc.current_location().get(location) == simdjson::SUCCESS;
}

}  // namespace frota::codec::internal
