// Writes `bytes` to `path` atomically (QSaveFile: a temporary file renamed into place, so
// a failed write leaves the old file or nothing). Returns "" or what went wrong.
#pragma once
#include <QByteArray>
#include <QCoreApplication>
#include <QSaveFile>
#include <QString>

namespace ts {

inline QString saveBytes(const QString& path, const QByteArray& bytes) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    return QCoreApplication::translate("ts::saveBytes", "cannot write %1: %2")
        .arg(path, f.errorString());
  return {};
}

}  // namespace ts
