#include "app/store/run_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>

#include "app/store/run_json.h"

namespace ts {

QString defaultLogDir() {
  return "./logs/infer";
}

QString appendRunLog(const QString& log_dir, const GenerationRequest& request,
                     const RecordedRun& run, const RunLogContext& context,
                     QByteArray* written_line) {
  if (!QDir().mkpath(log_dir)) return QString("cannot create the log directory %1").arg(log_dir);
  const QDateTime now = QDateTime::currentDateTimeUtc();
  QJsonObject result = runResultJson(run, computeMetrics(run));
  if (!context.log_ttft) result.remove("ttft_ms");
  if (!context.log_tpot) result.remove("tpot_ms");
  QJsonObject line{{"time", now.toString(Qt::ISODateWithMs)},
                   {"request", requestJson(request)},
                   {"base_url", context.base_url},
                   {"final_url", context.final_url},
                   {"attempts", context.attempts},
                   {"warnings", QJsonArray::fromStringList(context.warnings)},
                   {"result", result},
                   {"events", eventsJson(run)}};
  QByteArray bytes = QJsonDocument(line).toJson(QJsonDocument::Compact);
  if (written_line) *written_line = bytes;
  bytes.append('\n');
  const QString path =
      QDir(log_dir).filePath(QString("runs-%1.jsonl").arg(now.toString("yyyy-MM-dd")));
  const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return QString("cannot open %1 for appending: %2").arg(path, qt_error_string(errno));
  const ssize_t written = ::write(fd, bytes.constData(), static_cast<size_t>(bytes.size()));
  ::close(fd);
  if (written != bytes.size())
    return QString("could not write the run to %1 (disk full?)").arg(path);
  return {};
}

}  // namespace ts
