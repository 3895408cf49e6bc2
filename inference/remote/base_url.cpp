#include "inference/remote/base_url.h"

#include <QCoreApplication>

namespace ts {
namespace {

bool isLoopbackHost(const QString& hostPart) {
  return hostPart.startsWith("localhost") || hostPart.startsWith("127.") ||
         hostPart.startsWith("[::1]");
}

// Removes `suffix` (and the slashes before it) from the end of `path`; true if removed.
bool chopSuffix(QString& path, const QString& suffix) {
  if (!path.endsWith(suffix, Qt::CaseInsensitive)) return false;
  path.chop(suffix.size());
  while (path.endsWith('/')) path.chop(1);
  return true;
}

}  // namespace

NormalizedBaseUrl normalizeBaseUrl(const QString& input) {
  NormalizedBaseUrl out;
  QString text = input.trimmed();
  if (text.isEmpty()) {
    out.error = QCoreApplication::translate(
        "ts::BaseUrl", "the base URL is empty; expected something like https://taotoken.net/api");
    return out;
  }
  if (!text.contains("://")) {
    const QString scheme = isLoopbackHost(text) ? "http://" : "https://";
    text.prepend(scheme);
    out.notes
        << QCoreApplication::translate("ts::BaseUrl", "added %1 (no scheme was given)").arg(scheme);
  }
  QUrl url(text, QUrl::StrictMode);
  if (!url.isValid() || url.host().isEmpty()) {
    out.error = QString(QCoreApplication::translate(
                            "ts::BaseUrl",
                            "the base URL '%1' is not a valid URL; expected something like "
                            "https://taotoken.net/api"))
                    .arg(input.trimmed());
    return out;
  }
  if (url.scheme() != "http" && url.scheme() != "https") {
    out.error = QCoreApplication::translate(
                    "ts::BaseUrl", "the base URL '%1' uses scheme '%2'; expected http or https")
                    .arg(input.trimmed(), url.scheme());
    return out;
  }
  QString path = url.path();
  while (path.endsWith('/')) path.chop(1);
  if (chopSuffix(path, "/chat/completions"))
    out.notes << QCoreApplication::translate(
        "ts::BaseUrl", "removed a trailing /chat/completions (it is added per request)");
  if (chopSuffix(path, "/v1"))
    out.notes << QCoreApplication::translate("ts::BaseUrl",
                                             "removed a trailing /v1 (it is added per request)");
  if (url.path() != path && url.path() == path + "/" && out.notes.isEmpty())
    out.notes << QCoreApplication::translate("ts::BaseUrl", "removed a trailing slash");
  url.setPath(path);
  url.setQuery(QString());
  url.setFragment(QString());
  out.root = url.toString(QUrl::FullyEncoded);
  while (out.root.endsWith('/')) out.root.chop(1);
  return out;
}

QUrl chatCompletionsUrl(const QString& root) {
  return QUrl(root + "/v1/chat/completions");
}
QUrl modelsUrl(const QString& root) {
  return QUrl(root + "/v1/models");
}

}  // namespace ts
