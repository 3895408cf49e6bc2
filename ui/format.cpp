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

}  // namespace ts::ui
