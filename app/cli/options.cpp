#include "app/cli/options.h"

namespace ts {
namespace {

// `convert` parses trimmed text into T, setting ok; `what` names the expected kind.
template <typename T, typename Convert>
std::optional<T> parseInRange(const QString& name, const QString& text, T min, T max,
                              const char* what, Convert convert, OptionError& error) {
  bool ok = false;
  const T v = convert(text.trimmed(), &ok);
  if (ok && v >= min && v <= max) return v;
  error.message = QString("--%1: expected %2 from %3 to %4, found '%5'")
                      .arg(name, what)
                      .arg(min)
                      .arg(max)
                      .arg(text);
  return std::nullopt;
}

}  // namespace

std::optional<double> parseDoubleOption(const QString& name, const QString& text, double min,
                                        double max, OptionError& error) {
  return parseInRange<double>(
      name, text, min, max, "a number", [](const QString& t, bool* ok) { return t.toDouble(ok); },
      error);
}

std::optional<int> parseIntOption(const QString& name, const QString& text, int min, int max,
                                  OptionError& error) {
  return parseInRange<int>(
      name, text, min, max, "a whole number",
      [](const QString& t, bool* ok) { return t.toInt(ok); }, error);
}

}  // namespace ts
