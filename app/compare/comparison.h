// The figures of a side-by-side comparison: each compared series is one stored run or a
// group of repeated runs (a benchmark step), summarised with the metric functions
// (metrics.h): TTFT, TPOT and E2E over its runs, ITL over every gap of every run, mean
// rates, prefill and acceptance where present; the ITL curve of its first run; and the
// settings that differ between the series. Exported as CSV and as JSON with vLLM's
// benchmark field names where they mean the same thing.
#pragma once
#include <QJsonObject>
#include <QList>
#include <QPointF>
#include <QString>
#include <optional>
#include <vector>

#include "app/store/run_store.h"
#include "inference/stream/metrics.h"
#include "ui/comparison_figures.h"

namespace ts {

// The figures the view shows, and where they came from.
struct ComparedSeries : ui::SeriesFigures {
  QList<qint64> run_ids;
  StoredRun first;  // settings and environment of the series (its first run)
};

// `runs` loaded with their events (RunStore::load).
ComparedSeries compareRuns(const QString& label, const std::vector<StoredRun>& runs);

// Setting name -> its value in each series, for the settings that are not all equal.
QList<QPair<QString, QStringList>> differingSettings(const QList<ComparedSeries>& series);

// One row per series and figure: series,metric,mean,p50,p90,p99,count.
QString comparisonCsv(const QList<ComparedSeries>& series);
// {"series": [{label, runs, completed, mean_ttft_ms, median_ttft_ms, p90_ttft_ms, p99_ttft_ms,
//   ... tpot, itl, e2el ..., output_throughput_tok_s (mean decode rate), settings}]}
QJsonObject comparisonJson(const QList<ComparedSeries>& series);
// Everything the comparison view shows and exports.
ui::ComparisonContent comparisonContent(const QList<ComparedSeries>& series);

}  // namespace ts
