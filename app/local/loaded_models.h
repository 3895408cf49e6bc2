// Models loaded in this process, shared by the chat worker, serving from the app and the
// model manager: one copy of the weights per (file, runtime weight format), however many
// decoding sessions run on it (sessions only read the weights). Entries are weak: a model
// lives while someone holds it. Thread-safe (loads run off the GUI thread).
#pragma once
#include <QString>
#include <memory>

#include "inference/engine/model/model.h"

namespace ts {

class LoadedModels {
 public:
  // The model at `path` in `weights` if it is still loaded, else null.
  static std::shared_ptr<engine::Model> find(const QString& path, const QString& weights);
  static void add(const QString& path, const QString& weights,
                  const std::shared_ptr<engine::Model>& model);
  // Loads from files so far (cache hits of this registry do not count): tests use it to
  // see that a model was shared rather than read twice.
  static int loadsFromFiles();
  static void countLoadFromFile();
};

}  // namespace ts
