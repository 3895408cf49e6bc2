// `tokenscope-cli estimate`: the cost model's prediction without running the model: decode
// and prefill speed on this machine (its measured rates, cached), the change each --vary
// value should make, and tensor parallelism over --tp devices as a range (an estimate: no
// measurement is possible without those devices).
#pragma once
#include <QStringList>

namespace ts {
int runEstimateCommand(const QStringList& args);
}  // namespace ts
