#include "app/cli/download_command.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>
#include <cstdio>

#include "app/cli/common.h"
#include "app/local/model_paths.h"
#include "inference/remote/model_download.h"

namespace ts {

int runDownloadCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Downloads a model file from a Hugging Face hub: resumable (HTTP Range), verified against "
      "the size and sha256 the hub reports.");
  p.addOptions(
      {{"repo", "Repository, e.g. TheBloke/Llama-2-7B-GGUF.", "OWNER/NAME"},
       {"file", "File in the repository, e.g. llama-2-7b.Q4_0.gguf.", "PATH"},
       {"url", "A pasted file URL (…/resolve/main/file or …/blob/main/file).", "URL"},
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
    if (const QString problem = checkHubFile(file); !problem.isEmpty()) {
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
  const QString target = dir + "/" + QFileInfo(file.file).fileName();
  ModelDownload download;
  QEventLoop loop;
  int exit_code = 0;
  QJsonObject out;
  QObject::connect(&download, &ModelDownload::progress, [](const DownloadProgress& pr) {
    std::fprintf(
        stderr, "\r%.1f / %s MB  %.1f MB/s  ETA %s   ", pr.received / 1e6,
        pr.total > 0 ? QByteArray::number(pr.total / 1e6, 'f', 1).constData() : "?",
        pr.bytes_per_s / 1e6,
        pr.eta_s >= 0 ? QByteArray::number(pr.eta_s, 'f', 0).append(" s").constData() : "?");
  });
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
