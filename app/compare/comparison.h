// The figures of a side-by-side comparison: each compared series is one stored run or a
// group of repeated runs (a benchmark step), summarised with the metric functions
// (metrics.h): TTFT, TPOT and E2E over its runs, ITL over every gap of every run, mean
// rates, prefill and acceptance where present; the ITL curve of its first run; and the
// settings that differ between the series. Exported as CSV and as JSON with vLLM's
// benchmark field names where they mean the same thing.
#pragma once
#include <QDateTime>
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
  QString group;    // the benchmark group compared as a whole; "" for a single run
  struct Run {      // each run of the series, for the exports
    qint64 id = 0;
    QDateTime started;
    QString status;
    std::optional<int64_t> prompt_tokens;
    int64_t output_tokens = 0;
  };
  QList<Run> runs;
};

// `runs` loaded with their events (RunStore::load); `group`: they are that benchmark group.
ComparedSeries compareRuns(const QString& label, const std::vector<StoredRun>& runs,
                           const QString& group = {});

// Every setting of a series, in the order the comparison lists them: provider, base_url,
// model, backend, weights, kv_cache, speculative ("off" when none), the benchmark step's
// swept settings (concurrency, request_rate, ..., tpot_target_ms; "" outside a benchmark),
// benchmark (its sweep's start), sampling, prompt, prompt_tokens, started (local time),
// cpu, gpu, app_version.
QList<QPair<QString, QString>> seriesSettings(const ComparedSeries& series);

// Setting name -> its value in each series, for the settings that are not all equal.
QList<QPair<QString, QStringList>> differingSettings(const QList<ComparedSeries>& series);

// Labels that tell the series apart (ui::SeriesFigures::label, header, tag): a run by its
// #id and the first setting that differs (else its start date and time), a benchmark group
// by its step's value and its number of runs.
void nameSeries(QList<ComparedSeries>& series);

// One row per series and figure: series,metric,mean,p50,p90,p99,count, then the series'
// run ids (space-separated), every setting (seriesSettings' names), and the comparison's
// levers_differing (space-separated) and attribution_warning as further columns.
QString comparisonCsv(const QList<ComparedSeries>& series);
// {"series": [{label, runs, completed, mean_ttft_ms, median_ttft_ms, p90_ttft_ms, p99_ttft_ms,
//   ... tpot, itl, e2el ..., decode_tok_s, settings {every setting}, environment,
//   run_details [{id, started, status, prompt_tokens, output_tokens}]}],
//  levers_differing ["weights", "draft", ...: lever_attribution.h's names],
//  attribution_warning (when a pair differs in two or more levers), environment_note (when
//  the CPU or GPU differ), single_lever_commands [{lever, value, command}] (local runs)}
QJsonObject comparisonJson(const QList<ComparedSeries>& series);
// Everything the comparison view shows and exports.
ui::ComparisonContent comparisonContent(const QList<ComparedSeries>& series);

}  // namespace ts
