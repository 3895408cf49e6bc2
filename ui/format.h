// The only place numbers become text: durations, rates and token counts for the UI.
#pragma once
#include <QString>
#include <cstdint>
#include <optional>

namespace ts::ui {

QString formatDurationNs(std::optional<double> ns);  // "—", "0.84 ms", "212 ms", "3.42 s"
QString formatRate(std::optional<double> per_second, const char* unit = "tok/s");  // "48.2 tok/s"

}  // namespace ts::ui
