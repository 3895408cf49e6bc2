#include "ui/comparison_figures.h"

#include <QObject>

namespace ts::ui {

QString metricDefinition(const QString& metric) {
  if (metric == "ttft")
    return QObject::tr(
        "Time to first token: the first non-empty content chunk − the request "
        "start (ms); over the series' runs");
  if (metric == "tpot")
    return QObject::tr(
        "Time per output token: (E2E − TTFT) / (output tokens − 1), for runs "
        "with more than one token (ms)");
  if (metric == "itl")
    return QObject::tr(
        "Inter-token latency: the gap before every content chunk after the "
        "first, over every chunk of every run (ms)");
  if (metric == "e2e")
    return QObject::tr("End to end: the last non-empty content chunk − the request start (ms)");
  if (metric == "decode")
    return QObject::tr("(output tokens − 1) / (E2E − TTFT) = 1 / TPOT, mean over the runs");
  if (metric == "overall") return QObject::tr("output tokens / E2E, mean over the runs");
  if (metric == "prefill")
    return QObject::tr("The local engine's prompt pass (part of TTFT), mean over the runs");
  if (metric == "acceptance")
    return QObject::tr("Speculative runs: accepted / drafted tokens, mean over the runs");
  return {};
}

}  // namespace ts::ui
