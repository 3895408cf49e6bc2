// A saved sweep's steps as CSV (RFC 4180): a header, then one line per step in the order
// they ran. The first column is the swept value, named after the sweep's axis
// ("concurrency", "request_rate", ...); then the requests done and failed, the step's
// duration (s), mean / p50 / p90 / p99 of TTFT, TPOT, ITL and E2E (ms), output tok/s and
// goodput req/s. A figure a step lacks is an empty cell.
#pragma once
#include <QByteArray>
#include <QJsonObject>

namespace ts::ui {

// `sweep`: {"axis", "steps": [{"value", "requests_completed", "ttft_ms": {"p50", …}, …}]}.
QByteArray sweepCsv(const QJsonObject& sweep);

}  // namespace ts::ui
