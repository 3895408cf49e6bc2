#include "inference/remote/provider_memory.h"

#include <QMutex>
#include <QSet>

namespace ts {
namespace {
QMutex g_mutex;
QSet<QString>& rejecting() {
  static QSet<QString> set;
  return set;
}
}  // namespace

bool ProviderMemory::rejectsStreamOptions(const QString& key) {
  QMutexLocker lock(&g_mutex);
  return rejecting().contains(key);
}

void ProviderMemory::setRejectsStreamOptions(const QString& key, bool rejects) {
  QMutexLocker lock(&g_mutex);
  if (rejects)
    rejecting().insert(key);
  else
    rejecting().remove(key);
}

}  // namespace ts
