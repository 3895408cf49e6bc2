// The ladder's report as a person reads it: Markdown with PNG charts, written from the
// ladder's JSON (inference/engine/lab/ladder.h's ladderJson) so that every number in the
// text is the JSON's, and the JSON beside it. Drawing needs a QGuiApplication (fonts); the
// CLI starts one on the offscreen platform for `lab --ladder --report DIR`.
#pragma once
#include <QImage>
#include <QJsonObject>
#include <QString>

namespace ts {

// "+62.0% [58.1, 66.3]", or "no measurable difference [-1.2, +0.8]"; "—" without data.
QString changeText(const QJsonObject& metric);

// The report: title, baseline, one table row per step and value (decode, prefill, peak
// memory: change with interval and prediction; top-1 agreement and KL; kept or not, why),
// the final settings, and the charts (`decode_png` / `memory_png`: file names beside it).
QString ladderMarkdown(const QJsonObject& ladder, const QString& decode_png = "ladder-decode.png",
                       const QString& memory_png = "ladder-memory.png");

// Each step's values as bars of `metric`'s change (percent) with the 95 % interval as a
// whisker and the prediction as a diamond; width x height pixels.
QImage ladderChart(const QJsonObject& ladder, const QString& metric, const QString& title,
                   int width = 900, int height = 420);

// Writes ladder.md, ladder.json, ladder-decode.png and ladder-memory.png into `folder`
// (created). "" or what failed.
QString writeLadderReport(const QJsonObject& ladder, const QString& folder);

}  // namespace ts
