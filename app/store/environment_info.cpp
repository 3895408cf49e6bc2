#include "app/store/environment_info.h"

#include <QFile>
#include <QSysInfo>
#include <QThread>

#include "inference/engine/backend/backend_loader.h"

namespace ts {
namespace {

QString cpuModel() {
  QFile f("/proc/cpuinfo");
  if (!f.open(QIODevice::ReadOnly)) return QSysInfo::currentCpuArchitecture();
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("model name"))
      return QString::fromUtf8(line.mid(line.indexOf(':') + 1)).trimmed();
  return QSysInfo::currentCpuArchitecture();
}

QJsonObject compute() {
  QJsonObject env{{"app_version", TOKENSCOPE_VERSION},
                  {"qt_version", qVersion()},
                  {"os", QSysInfo::prettyProductName()},
                  {"kernel", QSysInfo::kernelVersion()},
                  {"cpu", cpuModel()},
                  {"cpu_cores", QThread::idealThreadCount()}};
  const engine::CudaAvailability cuda = engine::probeCuda();
  if (cuda.usable && !cuda.devices.empty()) {
    env.insert("gpu", QString::fromStdString(cuda.devices.front().name));
    env.insert("gpu_driver", cuda.driver_version);
    env.insert("cuda_runtime", cuda.runtime_version);
  }
  return env;
}

}  // namespace

QJsonObject environmentInfo() {
  static const QJsonObject env = compute();
  return env;
}

}  // namespace ts
