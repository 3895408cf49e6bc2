// What a benchmark group's name says. Runs of one benchmark step share a group
// (RunContext::group): the desktop sweep writes "bench <sweep start, ISO> <axis>=<value>"
// (bench_sweep.cpp), the CLI "bench <start> c=<N>" or "bench <start> rate=<r>"
// (bench_command.cpp). The step's value is a setting like any other: comparisons list it,
// History shows it.
#pragma once
#include <QList>
#include <QPair>
#include <QString>

namespace ts {

struct BenchGroup {
  QString sweep;  // when its sweep started (ISO date-time as written), "" when not a bench
  // the swept setting and its value, e.g. {"concurrency", "2"}, {"tpot_target_ms", "50"};
  // the CLI's c= and rate= read as concurrency and request_rate
  QList<QPair<QString, QString>> values;
};

BenchGroup parseBenchGroup(const QString& group);
// "concurrency 2", "TPOT target ms 50", "prefill chunk 256" (values joined with ", "); "" for no
// bench group.
QString benchStepText(const BenchGroup& g);
// The swept settings a group can carry, in the order comparisons list them.
const QList<QString>& benchSettingNames();

}  // namespace ts
