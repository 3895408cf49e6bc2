#include "inference/remote/hub_url.h"

#include <QStringList>

namespace ts {

QUrl HubFile::resolveUrl() const {
  QString base = base_url;
  while (base.endsWith('/')) base.chop(1);
  return QUrl(base + "/" + repo + "/resolve/" + revision + "/" + file);
}

QString checkHubRepo(const HubFile& f) {
  HubFile any = f;
  any.file = "x";
  return checkHubFile(any);
}

QString checkHubFile(const HubFile& f) {
  const QUrl base(f.base_url);
  if (!base.isValid() || (base.scheme() != "http" && base.scheme() != "https") ||
      base.host().isEmpty())
    return QString(
               "hub address: expected an http(s) URL such as https://huggingface.co, found '%1'")
        .arg(f.base_url);
  if (f.repo.count('/') != 1 || f.repo.startsWith('/') || f.repo.endsWith('/'))
    return QString("repository: expected owner/name such as TheBloke/Llama-2-7B-GGUF, found '%1'")
        .arg(f.repo);
  if (f.file.trimmed().isEmpty() || f.file.contains(".."))
    return QString(
               "file: expected a path inside the repository such as model.Q4_0.gguf, found '%1'")
        .arg(f.file);
  return {};
}

std::optional<HubFile> parseHubUrl(const QString& text, QString* error) {
  const QUrl url(text.trimmed());
  const QStringList parts = url.path().split('/', Qt::SkipEmptyParts);
  // owner / name / (resolve|blob) / revision / file...
  const int at = parts.indexOf("resolve") >= 0 ? parts.indexOf("resolve") : parts.indexOf("blob");
  // owner / name (/ tree / revision): the whole repository
  const bool repo_page = url.isValid() && !url.host().isEmpty() &&
                         (parts.size() == 2 || (parts.size() == 4 && parts[2] == "tree"));
  if (repo_page) {
    HubFile f;
    f.base_url = url.scheme() + "://" + url.authority();
    f.repo = parts[0] + "/" + parts[1];
    if (parts.size() == 4) f.revision = parts[3];
    if (const QString problem = checkHubRepo(f); !problem.isEmpty()) {
      if (error) *error = problem;
      return std::nullopt;
    }
    return f;
  }
  if (!url.isValid() || url.host().isEmpty() || at != 2 || parts.size() < 5) {
    if (error)
      *error = QString(
                   "expected a file URL such as https://huggingface.co/owner/name/resolve/main/"
                   "model.gguf or a repository's page such as "
                   "https://huggingface.co/baichuan-inc/Baichuan2-7B-Chat, found '%1'")
                   .arg(text.trimmed());
    return std::nullopt;
  }
  HubFile f;
  f.base_url = url.scheme() + "://" + url.authority();
  f.repo = parts[0] + "/" + parts[1];
  f.revision = parts[3];
  f.file = parts.mid(4).join('/');
  if (const QString problem = checkHubFile(f); !problem.isEmpty()) {
    if (error) *error = problem;
    return std::nullopt;
  }
  return f;
}

}  // namespace ts
