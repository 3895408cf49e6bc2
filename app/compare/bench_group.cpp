#include "app/compare/bench_group.h"

#include <QCoreApplication>
#include <QHash>
#include <QStringList>

namespace ts {

const QList<QString>& benchSettingNames() {
  static const QList<QString> names = {"concurrency",   "request_rate", "prompt_words",
                                       "prefill_chunk", "max_running",  "tpot_target_ms"};
  return names;
}

BenchGroup parseBenchGroup(const QString& group) {
  BenchGroup g;
  const QStringList words = group.split(' ', Qt::SkipEmptyParts);
  if (words.size() < 2 || words.front() != "bench") return g;
  g.sweep = words[1];
  for (qsizetype i = 2; i < words.size(); ++i) {
    const qsizetype eq = words[i].indexOf('=');
    if (eq <= 0) continue;
    QString name = words[i].left(eq);
    if (name == "c") name = "concurrency";
    if (name == "rate") name = "request_rate";
    g.values.append({name, words[i].mid(eq + 1)});
  }
  return g;
}

QString benchStepText(const BenchGroup& g) {
  QStringList parts;
  // the names a user reads in the Benchmark dialog, not the group's keys
  const QHash<QString, QString> shown = {
      {"concurrency", QCoreApplication::translate("ts::BenchGroup", "concurrency")},
      {"request_rate", QCoreApplication::translate("ts::BenchGroup", "request rate")},
      {"prompt_words", QCoreApplication::translate("ts::BenchGroup", "prompt words")},
      {"prefill_chunk", QCoreApplication::translate("ts::BenchGroup", "prefill chunk")},
      {"max_running", QCoreApplication::translate("ts::BenchGroup", "running sequences")},
      {"tpot_target_ms", QCoreApplication::translate("ts::BenchGroup", "TPOT target ms")}};
  for (const auto& [name, value] : g.values) parts << shown.value(name, name) + ' ' + value;
  return parts.join(", ");
}

}  // namespace ts
