// Base URL normalisation for OpenAI-compatible endpoints. Users paste many shapes:
// "https://host/api", "https://host/api/", ".../v1", ".../v1/chat/completions",
// "localhost:8000". All become one root to which "/v1/..." is appended.
#pragma once
#include <QString>
#include <QStringList>
#include <QUrl>

namespace ts {

struct NormalizedBaseUrl {
  QString root;       // e.g. "https://taotoken.net/api" (no trailing slash, no /v1)
  QStringList notes;  // what was changed, e.g. "removed a trailing /v1"
  QString error;      // non-empty when the input is not a usable URL
  bool ok() const { return error.isEmpty(); }
};

NormalizedBaseUrl normalizeBaseUrl(const QString& input);
QUrl chatCompletionsUrl(const QString& root);  // root + "/v1/chat/completions"
QUrl modelsUrl(const QString& root);           // root + "/v1/models"

}  // namespace ts
