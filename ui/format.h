// The only place numbers become text: durations, rates and token counts for the UI.
#pragma once
#include <QString>
#include <cstdint>
#include <optional>

namespace ts::ui {

QString formatDurationNs(std::optional<double> ns);  // "—", "0.84 ms", "212 ms", "3.42 s"
QString formatRate(std::optional<double> per_second, const char* unit = "tok/s");  // "48.2 tok/s"
QString formatBytes(uint64_t bytes);  // "812 B", "14.0 KiB", "3.5 MiB", "5.38 GiB"
QString formatCount(uint64_t n);      // "950", "260.1 K", "15.2 M", "6.97 B" (parameters)

}  // namespace ts::ui
