// `tokenscope-cli doctor`: the connection doctor for one provider, step by step.
#pragma once
#include <QStringList>

namespace ts {
int runDoctorCommand(const QStringList& args);
}  // namespace ts
