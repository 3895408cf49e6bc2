#include "ui/benchmark_csv.h"

#include <QJsonArray>
#include <QStringList>

namespace ts::ui {

QByteArray sweepCsv(const QJsonObject& sweep) {
  QStringList header = {sweep.value("axis").toString("value"), "requests_completed",
                        "requests_failed", "duration_s"};
  const char* metrics[] = {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"};
  const char* stats[] = {"mean", "p50", "p90", "p99"};
  for (const char* m : metrics)
    for (const char* s : stats) header << QString("%1_%2").arg(QString(m).chopped(3), s) + "_ms";
  header << "output_throughput_tok_s"
         << "goodput_req_s";
  const auto cell = [](const QJsonValue& v) {
    return v.isDouble() ? QString::number(v.toDouble(), 'g', 12) : QString();
  };
  QByteArray out = header.join(',').toUtf8() + "\r\n";
  for (const QJsonValue& step_value : sweep.value("steps").toArray()) {
    const QJsonObject step = step_value.toObject();
    QStringList row = {cell(step.value("value")), cell(step.value("requests_completed")),
                       cell(step.value("requests_failed")), cell(step.value("duration_s"))};
    for (const char* m : metrics)
      for (const char* s : stats) row << cell(step.value(m).toObject().value(s));
    row << cell(step.value("output_throughput_tok_s")) << cell(step.value("goodput_req_s"));
    out += row.join(',').toUtf8() + "\r\n";
  }
  return out;
}

}  // namespace ts::ui
