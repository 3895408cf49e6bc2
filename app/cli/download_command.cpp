#include "app/cli/download_command.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>
#include <cstdio>

#include "app/cli/common.h"
#include "app/local/model_paths.h"
#include "inference/remote/model_download.h"
#include "inference/remote/repo_download.h"

namespace ts {
namespace {

void printProgress(const DownloadProgress& pr) {
  std::fprintf(
      stderr, "\r%.1f / %s MB  %.1f MB/s  ETA %s   ", pr.received / 1e6,
      pr.total > 0 ? QByteArray::number(pr.total / 1e6, 'f', 1).constData() : "?",
      pr.bytes_per_s / 1e6,
      pr.eta_s >= 0 ? QByteArray::number(pr.eta_s, 'f', 0).append(" s").constData() : "?");
}

// Every file of a model repository into `folder`.
int downloadRepository(const HubFile& repo, const QString& folder, bool json) {
  RepoDownload download;
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
    std::fprintf(stderr, "\n");
    printErr("tokenscope-cli download: " + message);
    out = {{"error", message},
           {"resumable", resumable},
           {"files", QJsonArray::fromStringList(download.downloaded())},
           {"requests", download.requests()}};
    exit_code = 1;
    loop.quit();
  });
  download.start(repo, folder);
  if (download.isRunning()) loop.exec();
  if (json)
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  else if (exit_code == 0)
    std::printf("saved %s (%s)\n", qPrintable(out.value("path").toString()),
                qPrintable(out.value("checksum").toString()));
  return exit_code;
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
  HubFile file;
  if (p.isSet("url")) {
    QString error;
    auto parsed = parseHubUrl(p.value("url"), &error);
    if (!parsed) {
      printErr("tokenscope-cli download: --url: " + error);
      return 2;
    }
    file = *parsed;
  } else {
    file.base_url = p.value("hub");
    file.repo = p.value("repo");
    file.file = p.value("file");
    file.revision = p.value("revision");
    if (!p.isSet("file")) {
      if (const QString problem = checkHubRepo(file); !problem.isEmpty()) {
        printErr("tokenscope-cli download: expected --repo OWNER/NAME (with --file PATH for one "
                 "file), or --url URL: " + problem);
        return 2;
      }
    } else if (const QString problem = checkHubFile(file); !problem.isEmpty()) {
      printErr(
          "tokenscope-cli download: expected --repo OWNER/NAME and --file PATH, or --url "
          "URL: " +
          problem);
      return 2;
    }
  }
  // A size limit (ulimit -f) must fail the write, not kill the process: the partial file
  // is kept for a resume.
  std::signal(SIGXFSZ, SIG_IGN);
  const QString dir = p.isSet("dir") ? p.value("dir") : modelsDir();
  if (file.file.isEmpty()) return downloadRepository(file, dir + "/" + file.repo.section('/', 1), p.isSet("json"));
  const QString target = dir + "/" + QFileInfo(file.file).fileName();
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
    std::fprintf(stderr, "\n");
    printErr("tokenscope-cli download: " + message);
    out = {{"error", message},
           {"resumable", resumable},
           {"partial", download.partPath()},
           {"requests", download.requests()}};
    exit_code = 1;
    loop.quit();
  });
  download.start(file, target);
  loop.exec();
  if (p.isSet("json"))
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  else if (exit_code == 0)
    std::printf("saved %s (%s)\n", qPrintable(out.value("path").toString()),
                qPrintable(out.value("checksum").toString()));
  return exit_code;
}

}  // namespace ts
