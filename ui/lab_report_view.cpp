#include "ui/lab_report_view.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <cmath>

namespace ts::ui {
namespace {

// lupdate files this file's tr("…") calls under the namespace's context, "ts::ui": looking
// them up under any other context would leave every string untranslated.
QString tr(const char* text) {
  return QCoreApplication::translate("ts::ui", text);
}

// Percent figures: whole numbers from 10 up ("62"), one decimal below ("3.3").
QString number(double v) {
  const int decimals = std::fabs(v) >= 10 ? 0 : 1;
  const double shown = std::round(v * std::pow(10, decimals)) / std::pow(10, decimals);
  return QString::number(shown == 0 ? 0.0 : shown, 'f', decimals);  // never "-0.0"
}
QString signedPct(double v) {
  return (v >= 0 ? "+" : "") + number(v) + " %";
}
// A median: four significant digits, whole numbers from 1000 up.
QString median(double v) {
  return std::fabs(v) >= 1000 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 4);
}
QString optionalPct(const QJsonValue& v) {
  return v.isDouble() ? signedPct(v.toDouble()) : QString("—");
}

// The metrics in the lab's report order (lab_run.h's labMetrics).
const QStringList& metricOrder() {
  // single-stream runs, then the prefill lever's mixed load
  static const QStringList names = {"decode_tok_s",     "prefill_tok_s",    "ttft_ms",
                                    "tpot_ms",          "itl_p50_ms",       "itl_p99_ms",
                                    "ttft_p50_long_ms", "ttft_p99_long_ms", "tpot_p50_ms",
                                    "tpot_p99_ms",      "peak_rss_mb"};
  return names;
}

QString variantName(const QJsonObject& v) {
  return v.value("value").toString();
}

}  // namespace

QString labMetricName(const QString& metric) {
  if (metric == "decode_tok_s") return tr("decode tok/s");
  if (metric == "prefill_tok_s") return tr("prefill tok/s");
  if (metric == "ttft_ms") return tr("TTFT ms");
  if (metric == "tpot_ms") return tr("TPOT ms");
  if (metric == "itl_p50_ms") return tr("ITL p50 ms");
  if (metric == "itl_p99_ms") return tr("ITL p99 ms");
  if (metric == "peak_rss_mb") return tr("peak memory MB");
  if (metric == "ttft_p50_long_ms") return tr("long prompts' TTFT p50 ms");
  if (metric == "ttft_p99_long_ms") return tr("long prompts' TTFT p99 ms");
  if (metric == "tpot_p50_ms") return tr("streams' TPOT p50 ms");
  if (metric == "tpot_p99_ms") return tr("streams' TPOT p99 ms");
  return metric;
}

QString labChangeText(const QJsonObject& m) {
  const QJsonArray ci = m.value("ci95_pct").toArray();
  if (!m.value("change_pct").isDouble() || ci.size() != 2) return "—";
  const QString interval =
      QString("[%1, %2]").arg(number(ci.at(0).toDouble()), number(ci.at(1).toDouble()));
  if (!m.value("measurable").toBool()) return tr("no measurable difference") + " " + interval;
  return signedPct(m.value("change_pct").toDouble()) + " " + interval;
}

QList<LabRow> labRows(const QJsonObject& report) {
  QList<LabRow> rows;
  for (const QJsonValue& value : report.value("variants").toArray()) {
    const QJsonObject v = value.toObject();
    const QJsonObject metrics = v.value("metrics").toObject();
    for (const QString& name : metricOrder()) {
      if (!metrics.contains(name)) continue;
      const QJsonObject m = metrics.value(name).toObject();
      LabRow row;
      row.variant = variantName(v);
      row.metric = labMetricName(name);
      row.baseline = median(m.value("baseline_median").toDouble());
      row.value = median(m.value("variant_median").toDouble());
      row.change = labChangeText(m);
      row.predicted = optionalPct(m.value("predicted_change_pct"));
      row.error = optionalPct(m.value("prediction_error_pct"));
      row.measurable = m.value("measurable").toBool();
      rows << row;
    }
  }
  return rows;
}

QStringList labAccuracyLines(const QJsonObject& report) {
  QStringList lines;
  for (const QJsonValue& value : report.value("variants").toArray()) {
    const QJsonObject v = value.toObject();
    if (v.contains("accuracy")) {
      const QJsonObject a = v.value("accuracy").toObject();
      lines << tr("%1: top-1 agreement %2 %, mean KL %3 over %4 positions")
                   .arg(variantName(v))
                   .arg(100 * a.value("top1_agreement").toDouble(), 0, 'f', 1)
                   .arg(a.value("mean_kl").toDouble(), 0, 'g', 2)
                   .arg(a.value("positions").toInt());
    } else if (v.contains("output_identical")) {
      const QString acceptance =
          QString::number(100 * v.value("acceptance_rate").toDouble(), 'f', 0);
      lines << (v.value("output_identical").toBool()
                    ? tr("%1: greedy output identical; acceptance %2 %")
                    : tr("%1: greedy output DIFFERS from the baseline's; acceptance %2 %"))
                   .arg(variantName(v), acceptance);
    }
  }
  return lines;
}

QString labBaselineText(const QJsonObject& report) {
  const QJsonObject b = report.value("baseline").toObject();
  return tr("%1 · weights %2 · KV %3 · %4")
      .arg(QFileInfo(b.value("model").toString()).fileName(), b.value("weights").toString(),
           b.value("kv").toString(), labThreadsText(b.value("threads").toInt()));
}

QString labThreadsText(int threads) {
  return threads == 1 ? tr("1 thread") : tr("%1 threads").arg(threads);
}

QList<LabErrorPoint> labErrorPoints(const QList<QJsonObject>& reports) {
  QList<LabErrorPoint> points;
  int run = 0;
  for (const QJsonObject& report : reports) {
    ++run;
    for (const QJsonValue& value : report.value("variants").toArray()) {
      const QJsonObject v = value.toObject();
      const QJsonValue error = v.value("metrics")
                                   .toObject()
                                   .value("decode_tok_s")
                                   .toObject()
                                   .value("prediction_error_pct");
      if (error.isDouble()) points << LabErrorPoint{run, variantName(v), error.toDouble()};
    }
  }
  return points;
}

QString labMarkdown(const QJsonObject& report) {
  const QString lever =
      report.value("variants").toArray().at(0).toObject().value("lever").toString();
  QString md = "## " + tr("Lever lab: %1").arg(lever) + "\n\n";
  md += tr("Baseline: %1").arg(labBaselineText(report)) + "\n\n";
  md += "| " +
        QStringList{tr("Variant"),
                    tr("Metric"),
                    tr("Baseline"),
                    tr("Variant median"),
                    tr("Change [95 % interval]"),
                    tr("Predicted"),
                    tr("Prediction error")}
            .join(" | ") +
        " |\n|---|---|--:|--:|---|--:|--:|\n";
  for (const LabRow& r : labRows(report))
    md +=
        "| " +
        QStringList{r.variant, r.metric, r.baseline, r.value, r.change, r.predicted, r.error}.join(
            " | ") +
        " |\n";
  const QStringList accuracy = labAccuracyLines(report);
  if (!accuracy.isEmpty()) md += "\n- " + accuracy.join("\n- ") + "\n";
  return md;
}

}  // namespace ts::ui
