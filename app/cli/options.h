// Checked parsing of numeric command-line values, with errors that say what was
// expected and what was found.
#pragma once
#include <QString>
#include <optional>

namespace ts {

struct OptionError {
  QString message;
};

// Parses `text` as a number in [min, max]; on failure fills `error` with
// "--name: expected a number from MIN to MAX, found 'TEXT'".
std::optional<double> parseDoubleOption(const QString& name, const QString& text, double min,
                                        double max, OptionError& error);
std::optional<int> parseIntOption(const QString& name, const QString& text, int min, int max,
                                  OptionError& error);

}  // namespace ts
