// Appends every run as one JSON line to <log_dir>/runs-YYYY-MM-DD.jsonl (default
// ./logs/infer, the seed config's observability.log_dir). One write() per line with
// O_APPEND, so a crash never leaves earlier lines damaged. Keys are never written.
#pragma once
#include <QString>
#include <QStringList>

#include "inference/stream/generation_request.h"
#include "inference/stream/run_recorder.h"

namespace ts {

struct RunLogContext {
  QString base_url{};  // the normalised URL actually called (no credentials)
  QString final_url{};
  int attempts = 0;
  QStringList warnings{};
  bool log_ttft = true;  // observability.log_ttft: include ttft_ms in the line
  bool log_tpot = true;  // observability.log_tpot: include tpot_ms in the line
};

// Returns an empty string on success, else what went wrong (the caller shows it).
// `written_line`: the line as written (without its newline), e.g. for the run store's
// import key, so importing this log later does not add the run twice.
QString appendRunLog(const QString& log_dir, const GenerationRequest& request,
                     const RecordedRun& run, const RunLogContext& context,
                     QByteArray* written_line = nullptr);

QString defaultLogDir();  // "./logs/infer"

}  // namespace ts
