// Fixed-point text of doubles, fast, with exactly the digits of printf's "%.Nf".
#pragma once

#include <string>

namespace frota::base {

/// Appends `value` with `precision` (0-9) digits after the point, rounded half to even
/// on the double's exact binary value: the same text as printf("%.Nf") and
/// fmt::format("{:.Nf}") (a negative value that rounds to zero keeps its sign, "-0.0").
/// Rejection details are written with it (and recomputed by the batch SQL's printf), so
/// the text must match theirs to the byte; number_format_test.cc holds it to fmt's.
/// Exact integer arithmetic for |value| < 2^93 / 10^precision; NaN, infinities, larger
/// values and other precisions take fmt's path.
void AppendFixed(std::string& out, double value, int precision);

/// AppendFixed into a new string.
inline std::string FormatFixed(double value, int precision) {
  std::string out;
  AppendFixed(out, value, precision);
  return out;
}

}  // namespace frota::base
