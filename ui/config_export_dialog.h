// Where "Export configuration" writes: a save dialog that starts at a path the next start
// does not read (the app suggests it), and a confirmation before writing where it does
// (./config.toml, ./settings.json, the config folder's config.toml, $TOKENSCOPE_CONFIG),
// since the next start would then apply that file's provider and values.
// Widgets only: the app decides the paths (app/desktop/config_controller.h).
#pragma once
#include <QString>

class QWidget;

namespace ts::ui {

// A modal save dialog ("configExportDialog") on `suggested`, TOML or settings.json;
// returns the chosen path, or "" when cancelled.
QString askConfigExportPath(QWidget* parent, const QString& suggested);

// A modal question ("configExportConfirm"): `path` is read at every start; true when the
// user still wants it written there (the default answer is No).
bool confirmExportReadAtStart(QWidget* parent, const QString& path);

}  // namespace ts::ui
