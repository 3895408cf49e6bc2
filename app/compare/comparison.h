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

namespace ts {

struct ComparedSeries {
  QString label;
  QList<qint64> run_ids;
  StoredRun first;  // settings and environment of the series (its first run)
  int completed = 0, failed = 0;
  Summary ttft_ms, tpot_ms, itl_ms, e2e_ms;
  std::optional<double> decode_tok_s, overall_tok_s;  // means over the runs that have them
  std::optional<double> prefill_ms, acceptance_rate;  // local engine runs
  int64_t output_tokens = 0;                          // over all runs
  QList<QPointF> itl_curve;  // first run: (arrival s since the request, gap ms)
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

// What a figure means (the view's hover text): metric is ttft | tpot | itl | e2e | decode |
// overall | prefill | acceptance.
QString metricDefinition(const QString& metric);

}  // namespace ts
