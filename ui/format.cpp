#include "ui/format.h"

#include <cmath>

namespace ts::ui {

QString formatDurationNs(std::optional<double> ns) {
  if (!ns || !std::isfinite(*ns)) return QStringLiteral("—");
  const double ms = *ns / 1e6;
  if (ms < 10) return QString::number(ms, 'f', 2) + " ms";
  if (ms < 1000) return QString::number(ms, 'f', 1) + " ms";
  return QString::number(ms / 1000, 'f', 2) + " s";
}

QString formatRate(std::optional<double> per_second, const char* unit) {
  if (!per_second || !std::isfinite(*per_second)) return QStringLiteral("—");
  const int decimals = *per_second < 100 ? 1 : 0;
  return QString::number(*per_second, 'f', decimals) + " " + unit;
}

QString formatBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b < 1024) return QString::number(bytes) + " B";
  if (b < 1024.0 * 1024) return QString::number(b / 1024, 'f', 1) + " KiB";
  if (b < 1024.0 * 1024 * 1024) return QString::number(b / (1024.0 * 1024), 'f', 1) + " MiB";
  return QString::number(b / (1024.0 * 1024 * 1024), 'f', 2) + " GiB";
}

QString formatCount(uint64_t n) {
  const double x = static_cast<double>(n);
  if (x < 1e3) return QString::number(n);
  if (x < 1e6) return QString::number(x / 1e3, 'f', 1) + " K";
  if (x < 1e9) return QString::number(x / 1e6, 'f', 1) + " M";
  return QString::number(x / 1e9, 'f', 2) + " B";
}

}  // namespace ts::ui
