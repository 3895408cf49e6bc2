// What the comparison view shows, as values the app computes: per series (one run, or a
// group of repeated runs) its figures, the ITL curve of its first run, the settings that
// differ between the series, whether the difference can be attributed to one of them (the
// banner and its single-lever commands), and the CSV and JSON the view exports.
#pragma once
#include <QByteArray>
#include <QList>
#include <QPair>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

#include "inference/stream/metrics.h"

namespace ts::ui {

struct SeriesFigures {
  // What tells the series apart: the legend's label ("#12 · temperature 0.2", "#12 · 12-06
  // 10:32:05" when no setting differs, "concurrency 2 · 3 runs"), the tables' two-line
  // column header ("#12\ntemperature 0.2", "concurrency 2\n(3 runs)") and the box plot's
  // category ("#12", "concurrency 2").
  QString label, header, tag;
  int completed = 0, failed = 0;
  Summary ttft_ms, tpot_ms, itl_ms, e2e_ms;
  std::optional<double> decode_tok_s, overall_tok_s;  // means over the runs that have them
  std::optional<double> prefill_ms, acceptance_rate;  // local engine runs
  int64_t output_tokens = 0;                          // over all runs
  QList<QPointF> itl_curve;  // first run: (arrival s since the request, gap ms)
  // first run, local engine: (arrival s since the request, requests in the scheduler step
  // that produced the token); empty for other runs
  QList<QPointF> batch_curve;
};

// The single-lever comparison the view offers to run for a pair of local runs that differ
// in several levers: the lab command that measures one of those levers alone.
struct SingleLeverOffer {
  QString lever;    // the lab's lever name: weights | kv | draft | prefill
  QString value;    // what to measure against the baseline: "q8_0", "self-int4", "chunk:256"
  QString button;   // "Measure weights alone…"
  QString command;  // "tokenscope-cli lab --model /m.gguf --vary weights=q8_0 --repeat 5"
};

// Whether the comparison can tell which change made the difference (issue 43: one change
// at a time). Every text empty: nothing to say.
struct AttributionNotice {
  // "These runs differ in weights and speculative sampling: the difference cannot be
  // attributed to either." ("#3 and #7 differ in …" for one pair of more than two series)
  QString warning;
  QString advice;    // with a warning that offers nothing to run: "Run them again changing …"
  QString machines;  // the softer note that the runs were measured on different machines
  QList<SingleLeverOffer> offers;
};

struct ComparisonContent {
  QList<SeriesFigures> series;
  // What the series' tags are values of, when every series is one benchmark step of the
  // same swept setting ("concurrency": tags "2", "8"); "" when tags are "#id"s.
  QString tag_title;
  // Setting name -> its value in each series, for the settings that are not all equal
  // ("" where a series has no value, e.g. no concurrency for a chat run).
  QList<QPair<QString, QStringList>> differing_settings;
  AttributionNotice attribution;  // the banner above the tables
  QString csv;                    // one row per series and figure
  QByteArray json;                // vLLM's field names where they mean the same thing
};

// What a figure means (hover text): metric is ttft | tpot | itl | e2e | decode | overall |
// prefill | acceptance; "" for others.
QString metricDefinition(const QString& metric);

}  // namespace ts::ui
