#include "app/lab/ladder_report.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPainter>
#include <QSaveFile>
#include <algorithm>

namespace ts {
namespace {

QString signedNumber(double v) {
  return (v >= 0 ? "+" : "") + QString::number(v, 'f', 1);
}

QString accuracyText(const QJsonObject& variant) {
  if (variant.contains("accuracy")) {
    const QJsonObject a = variant["accuracy"].toObject();
    return QString("%1% / %2")
        .arg(100 * a["top1_agreement"].toDouble(), 0, 'f', 1)
        .arg(a["mean_kl"].toDouble(), 0, 'g', 3);
  }
  if (variant.contains("output_identical"))
    return variant["output_identical"].toBool() ? "output identical" : "output differs";
  return "—";
}

QString predictedText(const QJsonObject& metric) {
  const QJsonValue p = metric["predicted_change_pct"];
  return p.isDouble() ? signedNumber(p.toDouble()) + "%" : "—";
}

// One bar of the chart: its label, change, interval and prediction.
struct Bar {
  QString label;
  double change = 0, low = 0, high = 0;
  std::optional<double> predicted;
};

std::vector<Bar> barsOf(const QJsonObject& ladder, const QString& metric) {
  std::vector<Bar> bars;
  for (const QJsonValue& s : ladder["steps"].toArray()) {
    const QJsonObject step = s.toObject();
    for (const QJsonValue& v : step["report"].toObject()["variants"].toArray()) {
      const QJsonObject m = v.toObject()["metrics"].toObject()[metric].toObject();
      if (!m["change_pct"].isDouble()) continue;
      const QJsonArray ci = m["ci95_pct"].toArray();
      Bar b{step["step"].toString() + "\n" + v.toObject()["value"].toString(),
            m["change_pct"].toDouble(), ci.at(0).toDouble(), ci.at(1).toDouble(), std::nullopt};
      if (m["predicted_change_pct"].isDouble()) b.predicted = m["predicted_change_pct"].toDouble();
      bars.push_back(b);
    }
  }
  return bars;
}

}  // namespace

QString changeText(const QJsonObject& metric) {
  if (!metric["change_pct"].isDouble()) return "—";
  const QJsonArray ci = metric["ci95_pct"].toArray();
  const QString interval =
      QString("[%1, %2]").arg(signedNumber(ci.at(0).toDouble()), signedNumber(ci.at(1).toDouble()));
  if (!metric["measurable"].toBool()) return "no measurable difference " + interval;
  return signedNumber(metric["change_pct"].toDouble()) + "% " + interval;
}

QString ladderMarkdown(const QJsonObject& ladder, const QString& decode_png,
                       const QString& memory_png) {
  const QJsonObject base = ladder["baseline"].toObject();
  QString md = "# The ladder: " + base["model"].toString() + "\n\n";
  md += QString(
            "Baseline: weights %1, KV %2, %3 threads, %4-token prompts, %5 tokens per run, "
            "%6 runs per arm interleaved. Accuracy limit: top-1 agreement ≥ %7%.\n\n")
            .arg(base["weights"].toString(), base["kv"].toString())
            .arg(base["threads"].toInt())
            .arg(base["prompt_tokens"].toInt())
            .arg(base["gen_tokens"].toInt())
            .arg(base["repeat"].toInt())
            .arg(100 * ladder["accuracy_limit"].toDouble(), 0, 'f', 1);
  md +=
      "| step | value | decode tok/s change [95% CI] | predicted | prefill tok/s change | "
      "peak memory change | top-1 / KL | kept |\n";
  md += "|---|---|---|---|---|---|---|---|\n";
  QString reasons;
  for (const QJsonValue& s : ladder["steps"].toArray()) {
    const QJsonObject step = s.toObject();
    for (const QJsonValue& v : step["report"].toObject()["variants"].toArray()) {
      const QJsonObject variant = v.toObject();
      const QJsonObject m = variant["metrics"].toObject();
      const bool kept = step["kept"].toString() == variant["value"].toString();
      md += QString("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                .arg(step["step"].toString(), variant["value"].toString(),
                     changeText(m["decode_tok_s"].toObject()),
                     predictedText(m["decode_tok_s"].toObject()),
                     changeText(m["prefill_tok_s"].toObject()),
                     changeText(m["peak_rss_mb"].toObject()), accuracyText(variant),
                     kept ? "**kept**" : "no");
    }
    reasons += QString("- **%1**: %2\n").arg(step["step"].toString(), step["reason"].toString());
  }
  md += "\n" + reasons + "\n";
  md += "Result: " + ladder["final"].toObject()["description"].toString() + "\n\n";
  md += QString("![decode change per step](%1)\n\n![peak memory change per step](%2)\n")
            .arg(decode_png, memory_png);
  return md;
}

QImage ladderChart(const QJsonObject& ladder, const QString& metric, const QString& title,
                   int width, int height) {
  QImage image(width, height, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.drawText(QRect(0, 8, width, 24), Qt::AlignCenter, title);
  const std::vector<Bar> bars = barsOf(ladder, metric);
  if (bars.empty()) {
    p.drawText(image.rect(), Qt::AlignCenter, "no measured changes");
    return image;
  }
  double lo = 0, hi = 0;
  for (const Bar& b : bars) {
    lo = std::min({lo, b.low, b.change, b.predicted.value_or(0)});
    hi = std::max({hi, b.high, b.change, b.predicted.value_or(0)});
  }
  const double pad = std::max(1.0, (hi - lo) * 0.1);
  lo -= pad, hi += pad;
  const QRectF plot(70, 40, width - 90, height - 100);
  const auto y = [&](double v) { return plot.bottom() - (v - lo) / (hi - lo) * plot.height(); };
  p.setPen(QColor(120, 120, 120));
  p.drawLine(QPointF(plot.left(), y(0)), QPointF(plot.right(), y(0)));
  p.drawLine(plot.topLeft(), plot.bottomLeft());
  for (double tick : {lo + pad, 0.0, hi - pad})
    p.drawText(QRectF(0, y(tick) - 10, 64, 20), Qt::AlignRight | Qt::AlignVCenter,
               signedNumber(tick) + "%");
  const double slot = plot.width() / bars.size();
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double cx = plot.left() + slot * (i + 0.5), w = std::min(60.0, slot * 0.5);
    p.fillRect(QRectF(QPointF(cx - w / 2, y(std::max(0.0, b.change))),
                      QPointF(cx + w / 2, y(std::min(0.0, b.change)))),
               QColor(70, 130, 180));
    p.setPen(QPen(Qt::black, 1.5));
    p.drawLine(QPointF(cx, y(b.low)), QPointF(cx, y(b.high)));
    p.drawLine(QPointF(cx - 6, y(b.low)), QPointF(cx + 6, y(b.low)));
    p.drawLine(QPointF(cx - 6, y(b.high)), QPointF(cx + 6, y(b.high)));
    if (b.predicted) {
      const double py = y(*b.predicted);
      p.setBrush(QColor(230, 120, 30));
      p.drawPolygon(QPolygonF(
          {QPointF(cx, py - 6), QPointF(cx + 6, py), QPointF(cx, py + 6), QPointF(cx - 6, py)}));
      p.setBrush(Qt::NoBrush);
    }
    p.drawText(QRectF(cx - slot / 2, plot.bottom() + 6, slot, 40), Qt::AlignHCenter | Qt::AlignTop,
               b.label);
  }
  p.drawText(QRectF(0, height - 24, width, 20), Qt::AlignCenter,
             "bars: measured change, whiskers: 95% interval, diamonds: predicted");
  return image;
}

QString writeLadderReport(const QJsonObject& ladder, const QString& folder) {
  if (!QDir().mkpath(folder)) return "cannot create the folder " + folder;
  const auto write = [&](const QString& name, const QByteArray& bytes) -> QString {
    QSaveFile f(QDir(folder).filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
      return "cannot write " + f.fileName() + ": " + f.errorString();
    return "";
  };
  for (const auto& [metric, file, title] :
       {std::tuple{QString("decode_tok_s"), QString("ladder-decode.png"),
                   QString("decode tok/s change per step")},
        std::tuple{QString("peak_rss_mb"), QString("ladder-memory.png"),
                   QString("peak memory change per step")}}) {
    const QString path = QDir(folder).filePath(file);
    if (!ladderChart(ladder, metric, title).save(path, "PNG")) return "cannot write " + path;
  }
  if (QString e = write("ladder.json", QJsonDocument(ladder).toJson()); !e.isEmpty()) return e;
  return write("ladder.md", ladderMarkdown(ladder).toUtf8());
}

}  // namespace ts
