// The lever lab's report as the Lever lab window shows it: the report is the lab's JSON
// (inference/engine/lab/lab_json.h, as the run store keeps it), read here into table rows,
// accuracy lines, the prediction-error points of past runs and a Markdown copy. Values in,
// text out: nothing here runs anything.
#pragma once
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace ts::ui {

// One row of the result table: one metric of one variant.
struct LabRow {
  QString variant;  // "q8_0", "self-int4 K4"
  QString metric;   // "decode tok/s"
  QString baseline, value;
  QString change;            // "+62 % [58, 66]" or "no measurable difference [-3.1, 4.2]"
  QString predicted, error;  // "+55 %", "-4.3 %"; "—" where the cost model has none
  bool measurable = false;   // the interval excludes 0
};

// A prediction error of one variant in one past lab run (the chart of past runs).
struct LabErrorPoint {
  int run = 0;  // 1 = the oldest run shown
  QString value;
  double error_pct = 0;
};

QString labMetricName(const QString& metric);      // "decode_tok_s" -> "decode tok/s"
QString labChangeText(const QJsonObject& metric);  // the Change cell of one metric
QList<LabRow> labRows(const QJsonObject& report);
// Per variant: "q4_0: top-1 agreement 97.1 %, mean KL 0.021 over 64 positions" or, for a
// draft, "lookup K4: greedy output identical; acceptance 71 %".
QStringList labAccuracyLines(const QJsonObject& report);
// "ktiny-F16.gguf · weights F16 x29 · KV f16 · 2 threads" (the report's baseline).
QString labBaselineText(const QJsonObject& report);
QString labThreadsText(int threads);  // "1 thread", "2 threads"
// The decode_tok_s prediction errors of `reports` (oldest first), one point per variant.
QList<LabErrorPoint> labErrorPoints(const QList<QJsonObject>& reports);
// The report as Markdown: the baseline, a table of every row, the accuracy lines.
QString labMarkdown(const QJsonObject& report);

}  // namespace ts::ui
