// Where a run was measured, stored with it so comparisons across machines are honest:
// app version, OS and kernel, CPU model and cores, and the GPU name and driver when the
// CUDA plugin finds one. Computed once per process.
#pragma once
#include <QJsonObject>

namespace ts {

QJsonObject environmentInfo();

}  // namespace ts
