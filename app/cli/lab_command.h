// `tokenscope-cli lab`: one lever against a baseline, measured interleaved with 95 %
// bootstrap intervals, explained by the cost model's prediction, with the accuracy cost
// (inference/engine/lab/lab_run.h). Prints a table, or with --json the report
// (lab_json.h; README "tokenscope-cli lab").
#pragma once
#include <QStringList>

namespace ts {
int runLabCommand(const QStringList& args);
}  // namespace ts
