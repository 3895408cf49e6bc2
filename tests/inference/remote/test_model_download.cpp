// Model downloads against a hub mirror on 127.0.0.1 serving ../shared/models: the file
// arrives byte for byte with its sha256 verified; a dropped connection resumes with a
// Range request; pause and resume; a wrong checksum deletes the damaged file; a missing
// file says so; a size limit (a full disk) keeps the partial file, which a later run
// resumes. Pasted URLs parse.
#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "inference/remote/model_download.h"
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
    HubFile bad;
    bad.repo = "no-slash";
    bad.file = "m.gguf";
    QVERIFY(checkHubFile(bad).contains("expected owner/name"));
  }
};

QTEST_GUILESS_MAIN(TestModelDownload)
#include "test_model_download.moc"
