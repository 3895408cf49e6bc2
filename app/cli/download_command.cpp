#include "app/cli/download_command.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>
#include <cstdio>
#include <optional>

#include "app/cli/common.h"
#include "app/local/model_paths.h"
#include "inference/remote/model_download.h"
#include "inference/remote/repo_download.h"

namespace ts {
namespace {

void printProgress(const DownloadProgress& pr) {
  std::fprintf(stderr, "\r%.1f / %s MB  %.1f MB/s  ETA %s   ", pr.received / 1e6,
               pr.total > 0 ? QByteArray::number(pr.total / 1e6, 'f', 1).constData() : "?",
               pr.bytes_per_s / 1e6,
               pr.eta_s >= 0 ? QByteArray::number(pr.eta_s, 'f', 0).append(" s").constData() : "?");
}

// The end of a download: its JSON with --json, else "saved PATH (CHECKSUM)" when it
// succeeded (a failure was said on stderr); the exit code.
int report(const QJsonObject& out, int exit_code, bool json) {
  if (json)
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  else if (exit_code == 0)
    std::printf("saved %s (%s)\n", qPrintable(out.value("path").toString()),
                qPrintable(out.value("checksum").toString()));
  return exit_code;
}

// A failure, said on stderr and recorded with whether a new run resumes it.
QJsonObject failure(const QString& message, bool resumable, int requests) {
  std::fprintf(stderr, "\n");
  printErr("tokenscope-cli download: " + message);
  return {{"error", message}, {"resumable", resumable}, {"requests", requests}};
}

// Every file of a model repository into `folder`.
int downloadRepository(const HubFile& repo, const QString& folder, bool json) {
  RepoDownload download;
  download.setQuantizationCheck(unreadableQuantizationOf);
  QEventLoop loop;
  int exit_code = 0;
  QJsonObject out;
  QObject::connect(&download, &RepoDownload::fileStarted,
                   [](const QString& file, int index, int known) {
                     std::fprintf(stderr, "\n[%d/%d] %s\n", index, known, qPrintable(file));
                   });
  QObject::connect(&download, &RepoDownload::progress, &printProgress);
  QObject::connect(&download, &RepoDownload::verifying, [](const QString& file) {
    std::fprintf(stderr, "\nverifying %s…\n", qPrintable(file));
  });
  QObject::connect(&download, &RepoDownload::finished,
                   [&](const QString& path, const QString& summary) {
                     out = {{"path", path},
                            {"files", QJsonArray::fromStringList(download.downloaded())},
                            {"checksum", summary},
                            {"requests", download.requests()}};
                     loop.quit();
                   });
  QObject::connect(&download, &RepoDownload::failed, [&](const QString& message, bool resumable) {
    out = failure(message, resumable, download.requests());
    out.insert("files", QJsonArray::fromStringList(download.downloaded()));
    exit_code = 1;
    loop.quit();
  });
  download.start(repo, folder);
  if (download.isRunning()) loop.exec();
  return report(out, exit_code, json);
}

// One file into `target`.
int downloadFile(const HubFile& file, const QString& target, bool json) {
  ModelDownload download;
  QEventLoop loop;
  int exit_code = 0;
  QJsonObject out;
  QObject::connect(&download, &ModelDownload::progress, &printProgress);
  QObject::connect(&download, &ModelDownload::verifying,
                   [] { std::fprintf(stderr, "\nverifying…\n"); });
  QObject::connect(&download, &ModelDownload::finished,
                   [&](const QString& path, const QString& checksum) {
                     out = {{"path", path},
                            {"bytes", QFileInfo(path).size()},
                            {"checksum", checksum},
                            {"requests", download.requests()}};
                     loop.quit();
                   });
  QObject::connect(&download, &ModelDownload::failed, [&](const QString& message, bool resumable) {
    out = failure(message, resumable, download.requests());
    out.insert("partial", download.partPath());
    exit_code = 1;
    loop.quit();
  });
  download.start(file, target);
  loop.exec();
  return report(out, exit_code, json);
}

// The hub file (or repository: an empty file) the options name; nullopt after saying why.
std::optional<HubFile> hubFileFrom(const QCommandLineParser& p) {
  QString problem;
  if (p.isSet("url")) {
    if (auto parsed = parseHubUrl(p.value("url"), &problem)) return parsed;
    printErr("tokenscope-cli download: --url: " + problem);
    return std::nullopt;
  }
  HubFile file;
  file.base_url = p.value("hub");
  file.repo = p.value("repo");
  file.file = p.value("file");
  file.revision = p.value("revision");
  problem = p.isSet("file") ? checkHubFile(file) : checkHubRepo(file);
  if (problem.isEmpty()) return file;
  printErr(
      "tokenscope-cli download: expected --repo OWNER/NAME (with --file PATH for one file), "
      "or --url URL: " +
      problem);
  return std::nullopt;
}

}  // namespace

int runDownloadCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Downloads a model file, or a whole model repository (without --file: config, tokenizer, "
      "generation config and the weights' shards, as baichuan-inc/Baichuan2-7B-Chat publishes "
      "them), from a Hugging Face hub: resumable (HTTP Range; a repository also skips the files "
      "it already has), verified against the size and sha256 the hub reports.");
  p.addOptions(
      {{"repo", "Repository, e.g. TheBloke/Llama-2-7B-GGUF or baichuan-inc/Baichuan2-7B-Chat.",
        "OWNER/NAME"},
       {"file", "File in the repository, e.g. llama-2-7b.Q4_0.gguf (none: the whole repository).",
        "PATH"},
       {"url",
        "A pasted file URL (…/resolve/main/file or …/blob/main/file) or a repository's page "
        "(…/owner/name).",
        "URL"},
       {"revision", "Branch, tag or commit (default main).", "R", "main"},
       {"hub", "Hub address (a mirror with the same paths).", "URL", "https://huggingface.co"},
       {"dir", "Folder to save into (default: the app's models folder).", "DIR"},
       {"json", "Print one JSON object at the end."}});
  if (auto done = parseCommandLine(p, args, "download")) return *done;
  const auto file = hubFileFrom(p);
  if (!file) return 2;
  // A size limit (ulimit -f) must fail the write, not kill the process: the partial file
  // is kept for a resume.
  std::signal(SIGXFSZ, SIG_IGN);
  const QString dir = p.isSet("dir") ? p.value("dir") : modelsDir();
  if (file->file.isEmpty())
    return downloadRepository(*file, dir + "/" + file->repo.section('/', 1), p.isSet("json"));
  return downloadFile(*file, dir + "/" + QFileInfo(file->file).fileName(), p.isSet("json"));
}

}  // namespace ts
