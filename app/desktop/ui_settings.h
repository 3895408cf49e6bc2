// The GUI's own small settings (language, recent models): <config dir>/ui.ini, beside
// providers.json, so TOKENSCOPE_CONFIG_DIR moves them too.
#pragma once
#include <QSettings>

#include "app/config/effective_config.h"

namespace ts {

inline QSettings uiSettings() {
  return QSettings(config::configDirectory() + "/ui.ini", QSettings::IniFormat);
}

}  // namespace ts
