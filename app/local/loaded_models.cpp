#include "app/local/loaded_models.h"

#include <QFileInfo>
#include <map>
#include <mutex>

namespace ts {
namespace {

std::mutex g_mutex;
std::map<QString, std::weak_ptr<engine::Model>> g_models;  // key: canonical path + "\n" + weights
int g_loads = 0;

QString keyOf(const QString& path, const QString& weights) {
  const QString canonical = QFileInfo(path).canonicalFilePath();
  return (canonical.isEmpty() ? path : canonical) + "\n" + weights;
}

}  // namespace

std::shared_ptr<engine::Model> LoadedModels::find(const QString& path, const QString& weights) {
  std::lock_guard lock(g_mutex);
  const auto it = g_models.find(keyOf(path, weights));
  return it == g_models.end() ? nullptr : it->second.lock();
}

void LoadedModels::add(const QString& path, const QString& weights,
                       const std::shared_ptr<engine::Model>& model) {
  std::lock_guard lock(g_mutex);
  for (auto it = g_models.begin(); it != g_models.end();)  // forget models nobody holds
    it = it->second.expired() ? g_models.erase(it) : std::next(it);
  g_models[keyOf(path, weights)] = model;
}

int LoadedModels::loadsFromFiles() {
  std::lock_guard lock(g_mutex);
  return g_loads;
}

void LoadedModels::countLoadFromFile() {
  std::lock_guard lock(g_mutex);
  ++g_loads;
}

}  // namespace ts
