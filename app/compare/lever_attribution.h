// One change at a time (issue 43, item 5): which of the settings that differ between
// compared series are LEVERS — settings that change the engine's or the request's work
// (the model or endpoint, backend, weights, KV cache, speculative sampling, sampling, output
// length, prompt, a benchmark step's swept setting) — as opposed to bookkeeping (started,
// benchmark, app_version) and the machine (cpu, gpu: a softer note). When a pair of series
// differs in two or more levers its difference cannot be attributed to either; for local
// runs the missing single-lever comparisons are offered as `tokenscope-cli lab` commands.
//
// Not stored with a run, so never named: the CPU threads, the CUDA device, the context
// length and the scheduler settings a sweep did not vary.
#pragma once
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include "app/compare/comparison.h"
#include "ui/comparison_figures.h"

namespace ts {

// Setting name -> its value in each series (differingSettings' result).
using DifferingSettings = QList<QPair<QString, QStringList>>;

// The levers among `differing`, each once, in the order of their first setting, by
// machine name: the lab's lever where it has one (weights, kv, draft, prefill), else model,
// backend, sampling, max_tokens, stream, prompt, concurrency, request_rate, max_running.
// A different prompt token count alone is the prompt only while the model is the same
// (another tokenizer counts the same prompt differently), and only where both are known.
QStringList differingLevers(const DifferingSettings& differing);

// What a user reads for a lever: "weights", "KV cache", "speculative sampling", ...
QString leverName(const QString& lever);

// "weights", "weights and KV cache", "weights, KV cache and speculative sampling".
QString listOfNames(const QStringList& names);

// The settings that differ between series `a` and `b` only (columns of `differing`).
DifferingSettings pairDifference(const DifferingSettings& differing, int a, int b);

// The exact command that measures one lever alone against the model's baseline:
// "tokenscope-cli lab --model M --vary LEVER=VALUE [--draft-k K] --repeat 5", the model
// path and the value quoted for a POSIX shell where needed.
QString singleLeverCommand(const QString& model_path, const QString& lever, const QString& value,
                           const QString& draft_k = {});

struct LeverAttribution {
  QStringList levers;  // differingLevers over every series (lab names where the lab has one)
  ui::AttributionNotice notice;
};

// Every series' levers, the warning for each pair that differs in two or more of them
// (for two series "These runs …", for more the pair named by its tags), the lab commands
// for pairs of local runs whose model path is stored (the value of the pair's second
// series, or of its first where the second has the lab's baseline value; a stored K as
// --draft-k unless it was adaptive), and the note when the CPU or GPU differ.
LeverAttribution attributeLevers(const QList<ComparedSeries>& series);

}  // namespace ts
