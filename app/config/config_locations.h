// Where configuration files are read from at start and where an export should go, so an
// export never silently becomes the next start's configuration, and a start that applies
// a file from an unexpected place (the working directory, $TOKENSCOPE_CONFIG) says so.
#pragma once
#include <QString>
#include <QStringList>

namespace ts::config {

// Every file a start from the current working directory would read (locateConfigFile's
// candidates, whether they exist or not), as absolute, cleaned paths.
QStringList configFilesReadAtStart(const QString& config_dir);

// True when `path` is one of those: writing it changes what the next start applies.
bool isReadAtStart(const QString& path, const QString& config_dir);

// Where an export goes unless the user picks another place: "tokenscope-config.toml" in the
// Documents folder (the home folder when there is none). Never read at start.
QString suggestedExportPath();

// Why a start applied `path`, for a user who did not expect it: "" for the config folder's
// own config.toml (the usual place), else e.g. "found in the folder TokenScope was started
// from" or "named by TOKENSCOPE_CONFIG".
QString unexpectedOrigin(const QString& path, const QString& config_dir);

}  // namespace ts::config
