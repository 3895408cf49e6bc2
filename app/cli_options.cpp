#include "app/cli_options.h"

namespace ts {

std::optional<double> parseDoubleOption(const QString& name, const QString& text, double min,
                                        double max, OptionError& error) {
  bool ok = false;
  const double v = text.trimmed().toDouble(&ok);
  if (!ok || v < min || v > max) {
    error.message = QString("--%1: expected a number from %2 to %3, found '%4'")
                        .arg(name)
                        .arg(min)
                        .arg(max)
                        .arg(text);
    return std::nullopt;
  }
  return v;
}

std::optional<int> parseIntOption(const QString& name, const QString& text, int min, int max,
                                  OptionError& error) {
  bool ok = false;
  const int v = text.trimmed().toInt(&ok);
  if (!ok || v < min || v > max) {
    error.message = QString("--%1: expected a whole number from %2 to %3, found '%4'")
                        .arg(name)
                        .arg(min)
                        .arg(max)
                        .arg(text);
    return std::nullopt;
  }
  return v;
}

}  // namespace ts
