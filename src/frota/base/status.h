// Error values and Result<T>: how every fallible frota function reports failure.
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace frota::base {

/// A failure that a caller can show to a user as one line: what went wrong and where.
///
/// `Kind` lets callers tell bad input (exit 2) from a failed check or an
/// unavailable service without parsing the message.
class Error {
 public:
  enum class Kind { kInvalidInput, kNotFound, kIo, kUnavailable, kFailedCheck, kInternal };

  Error(Kind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] const std::string& message() const { return message_; }

  /// Returns this error with `context: ` in front, e.g. the file being read.
  [[nodiscard]] Error WithContext(std::string_view context) const {
    return Error(kind_, fmt::format("{}: {}", context, message_));
  }

 private:
  Kind kind_;
  std::string message_;
};

template <typename... Args>
Error InvalidInput(fmt::format_string<Args...> format, Args&&... args) {
  return Error(Error::Kind::kInvalidInput, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Error IoError(fmt::format_string<Args...> format, Args&&... args) {
  return Error(Error::Kind::kIo, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Error NotFound(fmt::format_string<Args...> format, Args&&... args) {
  return Error(Error::Kind::kNotFound, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Error Unavailable(fmt::format_string<Args...> format, Args&&... args) {
  return Error(Error::Kind::kUnavailable, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Error FailedCheck(fmt::format_string<Args...> format, Args&&... args) {
  return Error(Error::Kind::kFailedCheck, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Error Internal(fmt::format_string<Args...> format, Args&&... args) {
  return Error(Error::Kind::kInternal, fmt::format(format, std::forward<Args>(args)...));
}

/// A value or an Error. Accessing the value of an error is a programming bug (asserted).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<T>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const Error& error() const {
    assert(!ok());
    return std::get<Error>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

/// Result<void>: success, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), has_error_(true) {}  // NOLINT

  static Status Ok() { return {}; }
  [[nodiscard]] bool ok() const { return !has_error_; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const Error& error() const {
    assert(has_error_);
    return error_;
  }

 private:
  Error error_{Error::Kind::kInternal, ""};
  bool has_error_ = false;
};

}  // namespace frota::base

/// Returns the error of a Status/Result expression from the enclosing function.
#define FROTA_RETURN_IF_ERROR(expr) \
  do {                              \
    auto&& frota_status_ = (expr);  \
    if (!frota_status_.ok()) {      \
      return frota_status_.error(); \
    }                               \
  } while (false)

#define FROTA_CONCAT_INNER_(a, b) a##b
#define FROTA_CONCAT_(a, b) FROTA_CONCAT_INNER_(a, b)
/// `FROTA_ASSIGN_OR_RETURN(auto x, Compute());` unwraps a Result or returns its error.
#define FROTA_ASSIGN_OR_RETURN(lhs, expr) \
  FROTA_ASSIGN_OR_RETURN_IMPL_(FROTA_CONCAT_(frota_result_, __LINE__), lhs, expr)
// `tmp` names the variable the macro declares and `lhs` may be a declaration (`auto x`):
// names, not expressions to parenthesize.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FROTA_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) {                                   \
    return tmp.error();                              \
  }                                                  \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
