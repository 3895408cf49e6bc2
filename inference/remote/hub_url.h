// Where a model file lives on a Hugging Face hub (huggingface.co or a mirror with the same
// paths): repository, file and revision, from the fields of the download dialog or from a
// pasted URL (…/{repo}/resolve/{rev}/{file} or …/{repo}/blob/{rev}/{file}).
#pragma once
#include <QString>
#include <QUrl>
#include <optional>

namespace ts {

struct HubFile {
  QString base_url = "https://huggingface.co";  // the hub (a mirror: same paths)
  QString repo;                                 // "owner/name"
  QString file;                                 // path inside the repository
  QString revision = "main";
  QUrl resolveUrl() const;  // {base}/{repo}/resolve/{revision}/{file}
};

// Checks the fields: repo "owner/name", a file, an http(s) base URL. "" when fine.
QString checkHubFile(const HubFile& f);
// The same for a whole repository (the file is not looked at).
QString checkHubRepo(const HubFile& f);
// A pasted URL; nullopt with *error saying what was expected. A repository's page
// (…/{owner}/{name} or …/{owner}/{name}/tree/{rev}) gives an empty file: the whole
// repository.
std::optional<HubFile> parseHubUrl(const QString& url, QString* error);

}  // namespace ts
