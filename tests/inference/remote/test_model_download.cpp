// Model downloads against a hub mirror on 127.0.0.1 serving ../shared/models: the file
// arrives byte for byte with its sha256 verified; a dropped connection resumes with a
// Range request; pause and resume; a wrong checksum deletes the damaged file; a missing
// file says so; a size limit (a full disk) keeps the partial file, which a later run
// resumes. Pasted URLs parse. A whole repository (Baichuan2's PyTorch shards with their
// index, config, tokenizer and generation files) arrives file by file, skips what the folder
// has and resumes a partial shard; a bitsandbytes 4-bit repository is refused after its
// config, before any weights.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/local/model_paths.h"
#include "inference/remote/model_download.h"
#include "inference/remote/repo_download.h"
#include "tests/support/hub_mirror.h"

using namespace ts;
using ts::testing::HubMirror;
using ts::testing::HubMirrorScript;

namespace {

QByteArray sha256(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

struct Outcome {
  bool ok = false;
  QString path, checksum, error;
  bool resumable = false;
  int progress_events = 0;
  DownloadProgress last;
};

}  // namespace

class TestModelDownload : public QObject {
  Q_OBJECT
  HubMirror mirror_;
  QString model_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
                   "/models/baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf";
  QTemporaryDir dir_;

  HubFile file(const QString& name = "tiny.gguf") const {
    HubFile f;
    f.base_url = QString::fromStdString(mirror_.baseUrl());
    f.repo = "tokenscope/tiny";
    f.file = name;
    return f;
  }
  Outcome run(ModelDownload& d, const HubFile& f, const QString& target) {
    Outcome o;
    QSignalSpy done(&d, &ModelDownload::finished), failed(&d, &ModelDownload::failed);
    connect(&d, &ModelDownload::progress, this, [&](const DownloadProgress& p) {
      ++o.progress_events;
      o.last = p;
    });
    if (!f.repo.isEmpty()) d.start(f, target);
    [&] { QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), 30000); }();
    if (done.isEmpty() && failed.isEmpty()) {
      o.error = "timed out";
      return o;
    }
    if (!done.isEmpty()) {
      o.ok = true;
      o.path = done.first()[0].toString();
      o.checksum = done.first()[1].toString();
    } else {
      o.error = failed.first()[0].toString();
      o.resumable = failed.first()[1].toBool();
    }
    return o;
  }

 private slots:
  void initTestCase() {
    if (!QFile::exists(model_)) QSKIP("the shared fixtures are absent");
    QVERIFY(mirror_.start() > 0);
    mirror_.serve("tokenscope/tiny", "tiny.gguf", model_.toStdString());
  }
  void init() { mirror_.setScript({}); }

  void downloadsAndVerifies() {
    ModelDownload d;
    const QString target = dir_.filePath("a/tiny.gguf");
    const Outcome o = run(d, file(), target);
    QVERIFY2(o.ok, qPrintable(o.error));
    QCOMPARE(o.path, target);
    QCOMPARE(o.checksum, QString("sha256 verified"));
    QCOMPARE(sha256(target), sha256(model_));
    QVERIFY(!QFile::exists(target + ".part"));
    QVERIFY(o.progress_events > 0);
    QCOMPARE(o.last.total, QFileInfo(model_).size());
    QCOMPARE(o.last.received, QFileInfo(model_).size());
  }

  void aDroppedConnectionResumesWithRange() {
    HubMirrorScript s;
    s.drop_after_bytes = 3'000'000;
    s.drops = 2;
    mirror_.setScript(s);
    ModelDownload d;
    const QString target = dir_.filePath("b/tiny.gguf");
    const size_t before = mirror_.requests().size();
    const Outcome o = run(d, file(), target);
    QVERIFY2(o.ok, qPrintable(o.error));
    QCOMPARE(sha256(target), sha256(model_));
    QCOMPARE(d.requests(), 3);  // two drops, two resumes
    const auto requests = mirror_.requests();
    QStringList ranges;
    for (size_t i = before; i < requests.size(); ++i)
      if (requests[i].method == "GET") ranges << QString::fromStdString(requests[i].range);
    QCOMPARE(ranges, QStringList({"", "bytes=3000000-", "bytes=6000000-"}));
  }

  void pauseAndResume() {
    HubMirrorScript s;
    s.delay_per_chunk_ms = 20;  // 64 KiB per 20 ms: the pause lands mid-file
    mirror_.setScript(s);
    ModelDownload d;
    const QString target = dir_.filePath("c/tiny.gguf");
    QSignalSpy paused(&d, &ModelDownload::paused), progress(&d, &ModelDownload::progress);
    d.start(file(), target);
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 2, 10000);
    d.pause();
    QTRY_COMPARE_WITH_TIMEOUT(paused.size(), 1, 5000);
    const qint64 partial = QFileInfo(d.partPath()).size();
    QVERIFY(partial > 0 && partial < QFileInfo(model_).size());
    mirror_.setScript({});
    d.resume();
    const Outcome o = run(d, HubFile{}, target);
    QVERIFY2(o.ok, qPrintable(o.error));
    QCOMPARE(sha256(target), sha256(model_));
    QCOMPARE(QString::fromStdString(mirror_.requests().back().range),
             QString("bytes=%1-").arg(partial));
  }

  void aChecksumMismatchRemovesTheFile() {
    HubMirrorScript s;
    s.wrong_sha256 = true;
    mirror_.setScript(s);
    ModelDownload d;
    const QString target = dir_.filePath("d/tiny.gguf");
    const Outcome o = run(d, file(), target);
    QVERIFY(!o.ok);
    QVERIFY2(o.error.contains("checksum mismatch") && o.error.contains(QString(64, 'a')),
             qPrintable(o.error));
    QVERIFY(!o.resumable);
    QVERIFY(!QFile::exists(target));
    QVERIFY(!QFile::exists(target + ".part"));
  }

  void aMissingFileSaysSo() {
    ModelDownload d;
    const Outcome o = run(d, file("nope.gguf"), dir_.filePath("e/nope.gguf"));
    QVERIFY(!o.ok);
    QVERIFY2(o.error.contains("no file nope.gguf in tokenscope/tiny") && o.error.contains("404"),
             qPrintable(o.error));
  }

  // A file-size limit stands in for a full disk: the write fails, the partial file stays,
  // and the next run resumes it to the end.
  void aFullDiskKeepsThePartialFileForResume() {
    const QString target_dir = dir_.filePath("f");
    const QStringList args = {
        "download",  "--hub",           QString::fromStdString(mirror_.baseUrl()),
        "--repo",    "tokenscope/tiny", "--file",
        "tiny.gguf", "--dir",           target_dir,
        "--json"};
    QProcess limited;
    limited.start("prlimit", QStringList{"--fsize=2000000", TOKENSCOPE_CLI} + args);
    QVERIFY(limited.waitForFinished(30000));
    QCOMPARE(limited.exitCode(), 1);
    const QJsonObject failed = QJsonDocument::fromJson(limited.readAllStandardOutput()).object();
    QVERIFY2(failed.value("error").toString().contains("disk may be full"),
             qPrintable(failed.value("error").toString()));
    QCOMPARE(failed.value("resumable").toBool(), true);
    const qint64 partial = QFileInfo(target_dir + "/tiny.gguf.part").size();
    QVERIFY2(partial > 0 && partial <= 2000000, qPrintable(QString::number(partial)));
    QProcess again;
    again.start(TOKENSCOPE_CLI, args);
    QVERIFY(again.waitForFinished(30000));
    QCOMPARE(again.exitCode(), 0);
    const QJsonObject done = QJsonDocument::fromJson(again.readAllStandardOutput()).object();
    QCOMPARE(done.value("checksum").toString(), QString("sha256 verified"));
    QCOMPARE(sha256(target_dir + "/tiny.gguf"), sha256(model_));
    QCOMPARE(QString::fromStdString(mirror_.requests().back().range),
             QString("bytes=%1-").arg(partial));
  }

  // baichuan2-tiny's 13B folder served as a repository: every file arrives verified, in a
  // folder named after the repository; a second run fetches nothing; a partial shard resumes.
  void aRepositoryArrivesFileByFile() {
    const QString src = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
                        "/models/baichuan2-tiny/13b-sharded-f16";
    if (!QFile::exists(src + "/pytorch_model.bin.index.json")) QSKIP("baichuan2-tiny is absent");
    const QStringList files = {"config.json",
                               "generation_config.json",
                               "tokenizer.model",
                               "tokenizer_config.json",
                               "special_tokens_map.json",
                               "pytorch_model.bin.index.json",
                               "pytorch_model-00001-of-00002.bin",
                               "pytorch_model-00002-of-00002.bin"};
    for (const QString& f : files)
      mirror_.serve("baichuan-inc/Baichuan2-13B-Chat", f.toStdString(),
                    (src + "/" + f).toStdString());
    HubFile repo = file();
    repo.repo = "baichuan-inc/Baichuan2-13B-Chat";
    repo.file.clear();
    const QString folder = dir_.filePath("Baichuan2-13B-Chat");
    const auto download = [&](RepoDownload& d) {
      QSignalSpy done(&d, &RepoDownload::finished), failed(&d, &RepoDownload::failed);
      d.start(repo, folder);
      [&] { QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), 30000); }();
      return failed.isEmpty() ? done.value(0).value(1).toString()
                              : "FAILED " + failed.value(0).value(0).toString();
    };
    RepoDownload first;
    QSignalSpy started(&first, &RepoDownload::fileStarted);
    qint64 last_total = 0, last_received = 0;
    connect(&first, &RepoDownload::progress, this, [&](const DownloadProgress& p) {
      last_total = p.total;
      last_received = p.received;
    });
    const QString summary = download(first);
    QVERIFY2(summary.contains("8 file(s), sha256 verified"), qPrintable(summary));
    QCOMPARE(started.size(), 8);
    QCOMPARE(started.last().value(1).toInt(), 8);
    for (const QString& f : files) QCOMPARE(sha256(folder + "/" + f), sha256(src + "/" + f));
    QCOMPARE(last_received, last_total);  // the last shard ends the whole
    // No Python file, no safetensors after the .bin index was found.
    for (const auto& r : mirror_.requests())
      QVERIFY2(r.path.find(".py") == std::string::npos &&
                   r.path.find("pytorch_model.bin\"") == std::string::npos,
               r.path.c_str());
    // Again: everything is there, nothing is fetched.
    const size_t before = mirror_.requests().size();
    RepoDownload again;
    QVERIFY2(download(again).contains("8 file(s)"), "a second run");
    QCOMPARE(mirror_.requests().size(), before);
    // A shard cut short (an interrupted run) resumes with a Range request.
    const QString shard = folder + "/pytorch_model-00002-of-00002.bin";
    QFile::remove(shard);
    QFile::copy(src + "/pytorch_model-00002-of-00002.bin", shard + ".part");
    QFile part(shard + ".part");
    QVERIFY(part.open(QIODevice::ReadWrite) && part.resize(1000000));
    part.close();
    RepoDownload resumed;
    qint64 resumed_total = 0, resumed_received = 0;
    connect(&resumed, &RepoDownload::progress, this, [&](const DownloadProgress& p) {
      resumed_total = p.total;
      resumed_received = p.received;
    });
    QVERIFY2(download(resumed).contains("sha256 verified"), "resumed");
    QCOMPARE(sha256(shard), sha256(src + "/pytorch_model-00002-of-00002.bin"));
    QCOMPARE(QString::fromStdString(mirror_.requests().back().range), QString("bytes=1000000-"));
    QCOMPARE(resumed_received, resumed_total);  // the shard already there is not expected again

    // Paused while a file is verified (no transfer running): the next file waits, then
    // Resume continues; nothing is asked for in between.
    QDir(folder).removeRecursively();
    RepoDownload paused_run;
    QSignalSpy paused(&paused_run, &RepoDownload::paused),
        done(&paused_run, &RepoDownload::finished);
    connect(&paused_run, &RepoDownload::verifying, this, [&](const QString& file) {
      if (file == "config.json") paused_run.pause();
    });
    paused_run.start(repo, folder);
    QTRY_VERIFY_WITH_TIMEOUT(!paused.isEmpty(), 30000);
    QCOMPARE(paused_run.downloaded(), QStringList{"config.json"});
    const std::string last = mirror_.requests().back().path;
    QVERIFY2(last.find("config.json") != std::string::npos, last.c_str());
    paused_run.resume();
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 30000);
    QCOMPARE(paused_run.downloaded().size(), 8);
  }

  // Baichuan2-*-4bits (bitsandbytes NF4): refused from its config, before the weights; no
  // half model is left in the models folder.
  void aBitsandbytesRepositoryIsRefused() {
    QTemporaryDir src;
    QFile config(src.filePath("config.json"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"architectures": ["BaichuanForCausalLM"], "quantization_config":
                  {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4"}})");
    config.close();
    mirror_.serve("baichuan-inc/Baichuan2-7B-Chat-4bits", "config.json",
                  src.filePath("config.json").toStdString());
    mirror_.serve("baichuan-inc/Baichuan2-7B-Chat-4bits", "pytorch_model.bin",
                  model_.toStdString());
    HubFile repo = file();
    repo.repo = "baichuan-inc/Baichuan2-7B-Chat-4bits";
    repo.file.clear();
    RepoDownload d;
    d.setQuantizationCheck(unreadableQuantizationOf);  // the engine's rule, as the app sets it
    QSignalSpy failed(&d, &RepoDownload::failed);
    d.start(repo, dir_.filePath("Baichuan2-7B-Chat-4bits"));
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 30000);
    const QString message = failed.first().value(0).toString();
    for (const char* part : {"bitsandbytes nf4 4-bit", "baichuan-inc/Baichuan2-7B-Chat instead",
                             "convert --to gguf --type q4_k"})
      QVERIFY2(message.contains(part), qPrintable(message));
    for (const auto& r : mirror_.requests())
      QVERIFY2(r.path.find("4bits/resolve/main/pytorch_model") == std::string::npos,
               r.path.c_str());
    QVERIFY(!QFile::exists(dir_.filePath("Baichuan2-7B-Chat-4bits")));
  }

  // tokenscope-cli download --repo without --file: the whole repository, JSON listing it.
  void theCliDownloadsARepository() {
    const QString src = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") +
                        "/models/baichuan2-tiny/7b-bf16";
    if (!QFile::exists(src + "/pytorch_model.bin")) QSKIP("baichuan2-tiny is absent");
    for (const char* f :
         {"config.json", "generation_config.json", "tokenizer.model", "pytorch_model.bin"})
      mirror_.serve("baichuan-inc/Baichuan2-7B-Chat", f, (src + "/" + f).toStdString());
    QProcess cli;
    cli.start(TOKENSCOPE_CLI,
              {"download", "--repo", "baichuan-inc/Baichuan2-7B-Chat", "--hub",
               QString::fromStdString(mirror_.baseUrl()), "--dir", dir_.filePath("cli"), "--json"});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonObject out = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    QCOMPARE(out.value("path").toString(), dir_.filePath("cli/Baichuan2-7B-Chat"));
    QCOMPARE(out.value("files").toArray().size(), 4);
    QCOMPARE(sha256(dir_.filePath("cli/Baichuan2-7B-Chat/pytorch_model.bin")),
             sha256(src + "/pytorch_model.bin"));
  }

  void pastedUrlsParse() {
    QString error;
    auto f = parseHubUrl(
        "https://huggingface.co/TheBloke/Llama-2-7B-GGUF/resolve/main/llama-2-7b.Q4_0.gguf",
        &error);
    QVERIFY(f);
    QCOMPARE(f->repo, QString("TheBloke/Llama-2-7B-GGUF"));
    QCOMPARE(f->file, QString("llama-2-7b.Q4_0.gguf"));
    QCOMPARE(f->revision, QString("main"));
    QCOMPARE(f->base_url, QString("https://huggingface.co"));
    auto blob = parseHubUrl("http://127.0.0.1:9/a/b/blob/v1.0/sub/dir/m.gguf", &error);
    QVERIFY(blob);
    QCOMPARE(blob->file, QString("sub/dir/m.gguf"));
    QCOMPARE(blob->revision, QString("v1.0"));
    QCOMPARE(blob->resolveUrl().toString(),
             QString("http://127.0.0.1:9/a/b/resolve/v1.0/sub/dir/m.gguf"));
    QVERIFY(!parseHubUrl("https://huggingface.co/TheBloke", &error));
    QVERIFY2(error.contains("expected a file URL"), qPrintable(error));
    // A repository's page: the whole repository (no file).
    auto page = parseHubUrl("https://huggingface.co/baichuan-inc/Baichuan2-7B-Chat", &error);
    QVERIFY(page && page->file.isEmpty() && page->repo == "baichuan-inc/Baichuan2-7B-Chat");
    auto tree =
        parseHubUrl("https://hf-mirror.com/baichuan-inc/Baichuan2-13B-Chat/tree/v2.0", &error);
    QVERIFY(tree && tree->file.isEmpty() && tree->revision == "v2.0" &&
            tree->base_url == "https://hf-mirror.com");
    HubFile bad;
    bad.repo = "no-slash";
    bad.file = "m.gguf";
    QVERIFY(checkHubFile(bad).contains("expected owner/name"));
  }
};

QTEST_GUILESS_MAIN(TestModelDownload)
#include "test_model_download.moc"
